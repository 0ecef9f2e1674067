"""Document Q&A: collections of the user's files, read by structure, indexed for keyword and
meaning, and answered from with citations to file, page and passage."""
