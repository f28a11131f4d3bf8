"""The constants of the R bridge's protocol: the one definition the three languages share.

Python reads them here; ``r-shim/tools/generate_protocol.py`` writes them into C
(``r-shim/src/protocol.h``) and R (``r-shim/R/gen-protocol.R``), and a test fails when either
generated file is stale. Change a value here, then run that script.
"""
from __future__ import annotations

# -- handles: an R complex number key + MAGIC*1i stands for a Python object ----------------------
MAGIC = -7.25      # imaginary part of every handle R holds
FLAG_GC = 0.25     # subtracted from MAGIC in a returned handle: R should collect garbage
FLAG_WARN = 0.5    # subtracted from MAGIC in a returned handle: Python warnings wait for R

# -- releasing: handles R's collector frees are queued in C and released in batches ----------
RELEASE_BATCH = 1024  # queued dead handles that make the next reply release them

# -- C's direct calls ------------------------------------------------------------------------------
MAX_DIRECT_ARGS = 16  # more arguments than this always go through the Python callers
# a direct entry (direct.py's DirectEntry, what direct_fn gives C for a callable), read by C by
# the names of its attributes:
DIRECT_FN = "fn"                      # the function C calls
DIRECT_HANDLE_FIRST = "handle_first"  # True: call it only when the first argument is a handle

# -- error replies: a dict (errors.py's error_reply), read by C and R by the names of its fields
ERROR_MESSAGE = "message"          # the message, in R's terms (1-based dims, R type names)
ERROR_CLASS = "condition_class"    # the R condition class (runtime_error, value_error, ...)
ERROR_IN_R = "r_callback"          # True: an R error in an R function Python called, whose
                                   # condition R kept and re-raises

# -- raw replies of C's entry points that give no value ----------------------------------------
NOT_CALLED = 1     # arguments C does not convert: R calls through reticulate
STASHED = 2        # called; the result is in the bridge module's _stash for R to fetch
INTERRUPTED = 3    # Python raised KeyboardInterrupt: R signals an interrupt
UNKNOWN = 4        # the callable is not known in C (not set up, or no such name)

# -- the tables of callables C finds by name (r-shim/src/names.c), in order -----------------
TABLES = ("ops", "binary", "unary", "bridge", "fns")
