"""Where a path really is: every symlink followed (a dangling leaf too), ``..`` collapsed the
way the kernel collapses it, and the identity (device, inode) of what exists there.

An existing path is resolved by the kernel in one ``open(O_PATH)`` read back through
``/proc/self/fd``; a path that does not exist yet, or a system without ``/proc``, by a walk
that resolves the deepest existing ancestor component by component and appends the rest.
The path guard (``paths``) decides on what this returns.
"""

from __future__ import annotations

import errno
import os
import stat

from toolbelt.core.errors import PathError

__all__ = ["real_path"]

_O_PATH = getattr(os, "O_PATH", 0)  # Linux: resolve by the kernel; elsewhere by the walk
_MAX_LINKS = 40  # the kernel's limit on symlinks followed in one lookup


def real_path(joined: str, raw: str) -> tuple[str, tuple[int, int] | None]:
    """The real absolute path of ``joined`` and the identity of what exists there, if anything."""
    if _O_PATH:
        try:
            fd = os.open(joined, _O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.ENOTDIR, errno.EACCES):
                raise _unresolvable(raw, exc) from exc
        else:
            try:
                real = os.readlink(f"/proc/self/fd/{fd}")
                info = os.fstat(fd)
            except OSError:
                real = ""  # no /proc: the walk below answers
            finally:
                os.close(fd)
            if real.startswith("/") and not real.endswith(" (deleted)"):
                return real, (info.st_dev, info.st_ino)
    return _walk_real_path(joined, raw)


def _walk_real_path(joined: str, raw: str) -> tuple[str, tuple[int, int] | None]:
    """Resolve like the kernel, component by component, past the deepest existing ancestor.

    Below a missing component nothing can be a symlink, so the rest is appended as written
    (``..`` climbing back out of the missing part resumes real resolution). A symlink leaf that
    dangles is followed to its target: that is the file a write through it would create.
    """
    pending = joined.split("/")[::-1]
    real, links, missing = "", 0, 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            real = real.rpartition("/")[0]
            missing = max(missing - 1, 0)
            continue
        candidate = f"{real}/{name}"
        if missing:
            real, missing = candidate, missing + 1
            continue
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            real, missing = candidate, 1
            continue
        except OSError as exc:
            raise _unresolvable(raw, exc) from exc
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > _MAX_LINKS:
                raise _unresolvable(raw, OSError(errno.ELOOP, "loop"))
            target = os.readlink(candidate)
            real = "" if target.startswith("/") else real
            pending.extend(target.split("/")[::-1])
            continue
        if not stat.S_ISDIR(info.st_mode) and any(part not in ("", ".") for part in pending):
            raise PathError(f"{raw} cannot be used: {candidate} is a file, not a directory.")
        real = candidate
    real = real or "/"
    if missing:
        return real, None
    try:
        info = os.stat(real)
    except OSError:
        return real, None
    return real, (info.st_dev, info.st_ino)


def _unresolvable(raw: str, exc: OSError) -> PathError:
    if exc.errno == errno.ELOOP:
        return PathError(f"{raw} is a symlink loop (it points back to itself); use the real path.")
    if exc.errno == errno.ENAMETOOLONG:
        return PathError(f"{raw} is too long to be a path; use a shorter one.")
    if exc.errno == errno.EACCES:
        return PathError(f"The operating system denies access on the way to {raw}; use another.")
    return PathError(f"{raw} cannot be resolved ({exc.strerror}); check the path.")
