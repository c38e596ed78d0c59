"""Outlines of source files and a ranked map of a repository's definitions, from tree-sitter.

``grammars`` names each file's grammar (from the tree-sitter language pack, bundled in its
wheel) and what counts as a definition in it; ``outline`` lists a file's classes, functions
and methods with their signatures and line ranges; ``repo_map`` ranks a repository's
definitions by how many other files use their names, as aider's repo map does, and renders
the best within a token budget.
"""
