"""The test process's memory, kept from other processes: code under repair that reads it as a
file (/proc/PID/mem) finds the run's nonce there, and with the nonce signs whatever verdict it
likes.

A process may always read its own memory; the audit hook refuses that open to code under repair
(audit.py: `/proc/…/mem`, however the path gets there). Another process of the same uid, such as
one the code under repair starts, may read it too, unless the process is not dumpable: then only
a process with CAP_SYS_PTRACE may, which no sandboxed process has. So each hook, at load, makes
its process undumpable (prctl PR_SET_DUMPABLE 0, through ctypes, which is then dropped from
sys.modules, so code under repair still has to import it afresh, which the audit hook refuses).
autofix writes this after seal.py into each hook.
"""

import sys

PR_SET_DUMPABLE = 4


def undumpable():
    """Make this process undumpable (nothing, where prctl or ctypes isn't there)."""
    before = set(sys.modules)
    try:
        import ctypes

        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass
    for name in set(sys.modules) - before:
        if name.partition(".")[0] in ("ctypes", "_ctypes"):
            del sys.modules[name]
