"""The main screen's export command: the marked papers, the view's or the annotated ones, to a file the export dialog
names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...core.files.paths import export_directory
from .marker import marked_count

if TYPE_CHECKING:
    from .main import MainScreen


class Exporter:
    """The export command (x): the marked papers, else the view's when searching or filtering, else the annotated
    ones."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    @property
    def app(self):
        return self.screen.app

    def action_export(self) -> None:
        from .dialogs.export import ExportScreen

        if marked := self.screen.view.marked_papers():
            choose = ExportScreen(marked_count(len(marked)), export_directory())
            self.app.push_screen(choose, lambda choice: self._export(choice, False, marked=marked))
            return
        filtered = bool(self.screen.view.query)
        count = len(self.screen.view.matching())
        if filtered and not count:
            self.screen.notify("No papers in this view to export", severity="warning", timeout=2)
            return
        if not filtered and not self._annotated():  # an export of nothing would only write an empty file
            self.screen.notify(
                "No annotated papers to export: star, tag or note one, or search to export the papers found",
                severity="warning",
                timeout=4,
            )
            return
        in_view = f"the {count} papers in this view" if count > 1 else "the paper in this view"
        what = in_view if filtered else "annotated papers"
        self.app.push_screen(ExportScreen(what, export_directory()), lambda choice: self._export(choice, filtered))

    def _annotated(self) -> bool:
        """Whether any paper of the list is starred, noted or tagged: what `x` exports when nothing is searched."""
        from ...core.export.formats import is_annotated

        notes = self.app.store.all()
        return any(is_annotated(notes.get(paper.id)) for paper in self.screen.papers.papers)

    def _export(self, choice, filtered: bool, force: bool = False, marked=None) -> None:
        from ...core.export.citation import venue_notice
        from ...core.export.files import ExportExistsError, own_file, write_atomic
        from ...core.export.formats import CITATION_FORMATS, export, select
        from .dialogs.confirm import ConfirmScreen

        if choice is None:
            return
        fmt, path = choice
        if what := own_file(path, self.app.store.path, Path(self.screen.papers.path)):
            self.screen.notify(f"{path}: is {what}; an export never writes over it", severity="error", markup=False)
            return
        notes = self.app.store.all()
        if marked:
            papers = marked
        elif filtered:
            papers = [self.screen.papers.papers[pos] for pos in sorted(self.screen.view.matching())]
        else:
            papers = select(self.screen.papers.papers, notes)
        try:
            write_atomic(path, export(papers, notes, fmt, self.screen.papers.name), force=force)
        except ExportExistsError:
            self.app.push_screen(
                ConfirmScreen(f"{path} exists. Overwrite it?"),
                lambda yes: self._export(choice, filtered, force=True, marked=marked) if yes else None,
            )
            return
        except OSError as exc:
            self.screen.notify(f"{path}: cannot write ({exc.strerror or exc})", severity="error", markup=False)
            return
        notice = venue_notice(papers, self.screen.papers.name) if fmt in CITATION_FORMATS else None
        done = f"Exported {len(papers)} paper(s) to {path}" + (f" ({notice})" if notice else "")
        self.screen.notify(done, markup=False, timeout=4)
