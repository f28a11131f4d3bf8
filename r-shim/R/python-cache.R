# Where the Python package this R package carries is unpacked (issue 28).
#
# The package installs its Python code as one archive, inst/python/rtorchpy.tar.xz (~0.35 MB),
# not as ~190 files (1.9 MB installed, a quarter of it block rounding): that keeps the
# installed package under CRAN's 5 MB. Python could import a zip directly, but zipimport
# cannot keep compiled bytecode, which costs ~0.3-0.4 s at every start. So the archive is
# unpacked once into a directory of its own, where Python keeps its bytecode as usual:
#
# - <cache>/<python version>-<first 12 hex digits of the archive's MD5>, with <cache> the
#   user cache directory tools::R_user_dir("rtorchpy", "cache") (CRAN allows caches there
#   when they are kept small and outdated material is removed);
# - during R CMD check (examples, tests, vignettes) a directory under tempdir() instead: CRAN
#   forbids writing anywhere else then. Likewise when the user cache cannot be written.
#
# Unpacking goes into a temporary directory beside the final one, which is then renamed: a
# directory that has the final name is complete, and two sessions starting at once both end
# up using one complete copy. Each start marks its directory as used (its time stamp); copies
# of other versions or builds, and unpacking left-overs, unused for an hour are removed (all
# but one typing-only module is imported at start-up, so a session already running keeps
# working without its files).

.python_cache <- new.env(parent = emptyenv())

# Copies of other builds unused for this long (seconds) are removed.
.PYTHON_CACHE_MAX_IDLE <- 3600

# The directory holding the bundled Python package (its rtorchpy/), unpacked on first call in a
# session, or "" when this build carries none.
.bundled_python_dir <- function() {
  dir <- .python_cache$dir
  if (is.null(dir)) {
    dir <- .find_bundled_python(system.file("python", package = "rtorchpy"))
    .python_cache$dir <- dir
  }
  dir
}

# `python_dir` holds the archive, or an unpacked rtorchpy/ (what builds made before the
# archive), which is used where it is.
.find_bundled_python <- function(python_dir) {
  if (!nzchar(python_dir)) return("")
  if (file.exists(file.path(python_dir, "rtorchpy", "__init__.py"))) return(python_dir)
  archive <- file.path(python_dir, "rtorchpy.tar.xz")
  if (!file.exists(archive)) return("")
  key <- paste0(.python_version_wanted(), "-", substr(unname(tools::md5sum(archive)), 1L, 12L))
  session <- file.path(tempdir(), "rtorchpy-python")
  for (root in unique(c(.python_cache_root(), session))) {
    dir <- .unpacked_copy(archive, root, key)
    if (nzchar(dir)) return(dir)
  }
  .runtime_error("the Python code this package carries (", archive, ") could not be unpacked ",
                 "into ", .python_cache_root(), " nor into ", session, ".\nFix: make one of them ",
                 "writable, or reinstall the R package.")
}

# The user cache directory, or tempdir()'s during R CMD check (and before R 4.0, which has no
# R_user_dir()).
.python_cache_root <- function() {
  if (nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_")) ||
      !exists("R_user_dir", envir = asNamespace("tools"), inherits = FALSE)) {
    return(file.path(tempdir(), "rtorchpy-python"))
  }
  tools::R_user_dir("rtorchpy", which = "cache")
}

# root/key holding an unpacked copy of `archive` (unpacked now if there is none yet), or ""
# when root cannot be written.
.unpacked_copy <- function(archive, root, key) {
  final <- file.path(root, key)
  if (!.is_unpacked(final)) {
    if (!dir.exists(root)) dir.create(root, recursive = TRUE, showWarnings = FALSE)
    if (file.access(root, 2L) != 0L) return("")
    tmp <- tempfile(paste0(".unpacking-", key, "-"), tmpdir = root)
    on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
    status <- tryCatch(utils::untar(archive, exdir = tmp, tar = "internal"),
                       error = function(e) 1L, warning = function(w) 1L)
    if (!identical(as.integer(status), 0L) || !.is_unpacked(tmp)) return("")
    # (fails when another session renamed its copy first: then that one is used)
    suppressWarnings(file.rename(tmp, final))
    if (!.is_unpacked(final)) return("")
  }
  suppressWarnings(Sys.setFileTime(final, Sys.time()))
  .prune_python_cache(root, key)
  final
}

.is_unpacked <- function(dir) file.exists(file.path(dir, "rtorchpy", "__init__.py"))

# Remove, under root, the copies of other builds and the unpacking left-overs unused for
# .PYTHON_CACHE_MAX_IDLE seconds. Only names this file makes are touched.
.prune_python_cache <- function(root, keep, now = Sys.time()) {
  entries <- list.files(root, all.files = TRUE, no.. = TRUE)
  ours <- grepl("^(\\.unpacking-)?[0-9][0-9A-Za-z.]*-[0-9a-f]{12}", entries) & entries != keep
  for (name in entries[ours]) {
    path <- file.path(root, name)
    used <- file.mtime(path)
    if (!is.na(used) && difftime(now, used, units = "secs") > .PYTHON_CACHE_MAX_IDLE) {
      unlink(path, recursive = TRUE)
    }
  }
  invisible(NULL)
}
