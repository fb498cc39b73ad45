"""Papers as read from a paper file: the model, the reader, references to papers, cached titles."""
