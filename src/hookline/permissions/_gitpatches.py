"""What a patch ``git apply`` or ``git am`` reads would write: the files its headers name.

``why_protected(...)`` reads each patch file (up to ``MAX_PATCH`` bytes) and says why it may
write into the protected set: a header line (``diff --git``, ``---``, ``+++``, ``rename``,
``copy``) that holds a protected name, quoted or escaped ones too, or names a protected path
with any number of its leading parts dropped (as ``-p`` drops them); a patch from stdin, one
only run time names, or one another command of the line may write first is not read.
"""

from __future__ import annotations

import posixpath

from hookline.permissions._protected import NAMES, ProtectedSet
from hookline.permissions.bash._words import Word

__all__ = ["MAX_PATCH", "why_protected"]

#: Bytes of a patch read to find the files it names; a bigger patch counts as unreadable.
MAX_PATCH = 8 * 1024 * 1024
_HEADERS = ("diff --git ", "--- ", "+++ ", "rename from ", "rename to ", "copy from ", "copy to ")


def why_protected(
    shown: str,
    patches: tuple[Word, ...] | None,
    where: str,
    top: str,
    protected: ProtectedSet,
    *,
    others_write: bool,
) -> str | None:
    """Why the patches ``shown`` (``git apply``, ``git am``) reads may write into the protected
    set, in a phrase that follows the line's name; None when none of them can."""
    if patches is None:
        return (
            f"has {shown} apply patches hookline cannot check first (stdin, options it "
            "does not read, or patches left from before)"
        )
    if others_write:
        return f"has {shown} apply a patch another command of the line may write first"
    for word in patches:
        if word.value is None or word.glob:
            return f"has {shown} apply `{word.raw}`, which only run time knows"
        path = posixpath.join(where, word.value)
        try:
            with open(path, "rb") as file:
                text = file.read(MAX_PATCH + 1)
        except OSError as exc:
            return f"has {shown} apply `{word.raw}`, which cannot be read ({exc.strerror})"
        if len(text) > MAX_PATCH:
            return f"has {shown} apply `{word.raw}`, too big to check"
        if hit := _names(text.decode(errors="replace"), top, protected):
            return f"has {shown} apply `{word.raw}`, which writes {hit}, which is protected"
    return None


def _names(text: str, top: str, protected: ProtectedSet) -> str:
    """A protected path a patch's file headers name ("" if none): any name of the set in a
    header line (quoted and escaped ones too), or a header path that is one (with any number
    of leading parts dropped, as ``-p`` drops them)."""
    for line in text.splitlines():
        if not line.startswith(_HEADERS):
            continue
        if any(name in line for name in NAMES):
            return line.strip()
        for token in line.split()[1:]:
            parts = [p for p in token.strip('"').split("/") if p]
            for start in range(len(parts)):
                if protected.covers(posixpath.join(top, *parts[start:]), resolve=False):
                    return "/".join(parts[start:])
    return ""
