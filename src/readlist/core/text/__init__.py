"""Text as readlist reads it: normalisation, ids, LaTeX folding, search tokens."""
