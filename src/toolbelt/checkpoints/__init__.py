"""Checkpoints: undo any change a call made — file tools and commands, in git work trees and
outside them.

- ``journal``: before a file tool changes a file, its before-image is recorded durably
  (``before_write``; the one hook a file-changing tool calls);
- ``toolset``: a wrapper toolset brackets each command that may write with snapshots of the
  workspace (git's object store and a private index in a shadow repository under the state
  directory — the user's own repository is never touched), and a background job's with one
  when it ends;
- ``undo``: restore a call's files (refusing when they changed since), and redo;
- ``session.Checkpoints``: a runtime's face of all this (``Runtime.checkpoints``);
- ``retention``: age and size limits, pruned in the background.

The store layout is described in ``layout``; the records in ``records`` and ``history``.
Nothing is imported here: the file tools import ``journal`` alone, so a read does not load
the snapshot machinery.
"""
