"""Search over one paper list: the index, the query language, matching, ranking and related papers."""
