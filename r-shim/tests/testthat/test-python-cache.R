# Unpacking the Python archive the package carries (R/python-cache.R). These use a small
# archive of their own and cache roots under tempdir(); they need no Python.

# A python/ directory holding an archive whose rtorchpy/ has the given files.
fake_python_dir <- function(files = c("__init__.py" = "x = 1")) {
  src <- withr::local_tempdir(.local_envir = parent.frame())
  dir.create(file.path(src, "rtorchpy"))
  for (name in names(files)) writeLines(files[[name]], file.path(src, "rtorchpy", name))
  out <- withr::local_tempdir(.local_envir = parent.frame())
  withr::with_dir(src, utils::tar(file.path(out, "rtorchpy.tar.xz"), "rtorchpy",
                                  compression = "xz", tar = "internal"))
  out
}

# The key the package gives the archive in `python_dir`.
archive_key <- function(python_dir) {
  md5 <- unname(tools::md5sum(file.path(python_dir, "rtorchpy.tar.xz")))
  paste0(rtorchpy:::.python_version_wanted(), "-", substr(md5, 1L, 12L))
}

local_cache <- function(envir = parent.frame()) {
  cache <- withr::local_tempdir(.local_envir = envir)
  withr::local_envvar(R_USER_CACHE_DIR = cache, `_R_CHECK_PACKAGE_NAME_` = NA,
                      .local_envir = envir)
  file.path(cache, "R", "rtorchpy")
}

test_that("the archive is unpacked once into the user cache, then reused", {
  root <- local_cache()
  python_dir <- fake_python_dir()
  dir <- rtorchpy:::.find_bundled_python(python_dir)
  expect_equal(dir, file.path(root, archive_key(python_dir)))
  expect_equal(readLines(file.path(dir, "rtorchpy", "__init__.py")), "x = 1")
  # nothing but the copy is left in the cache (the unpacking directory was renamed)
  expect_equal(list.files(root, all.files = TRUE, no.. = TRUE), basename(dir))
  # a second session finds it: not unpacked again (a file added to it stays), marked as used
  writeLines("", file.path(dir, "rtorchpy", "marker.py"))
  Sys.setFileTime(dir, Sys.time() - 7200)
  expect_equal(rtorchpy:::.find_bundled_python(python_dir), dir)
  expect_true(file.exists(file.path(dir, "rtorchpy", "marker.py")))
  expect_lt(as.numeric(difftime(Sys.time(), file.mtime(dir), units = "secs")), 600)
})

test_that("another build's archive gets a directory of its own", {
  root <- local_cache()
  one <- rtorchpy:::.find_bundled_python(fake_python_dir(c("__init__.py" = "x = 1")))
  two <- rtorchpy:::.find_bundled_python(fake_python_dir(c("__init__.py" = "x = 2")))
  expect_false(one == two)
  expect_equal(readLines(file.path(two, "rtorchpy", "__init__.py")), "x = 2")
  expect_true(dir.exists(one))  # used a moment ago: kept
})

test_that("copies of other builds and left-overs unused for an hour are removed", {
  root <- local_cache()
  dir.create(root, recursive = TRUE)
  old <- file.path(root, c("0.1.0.dev0-0123456789ab", ".unpacking-0.1.0-0123456789ab-2f3e1"))
  recent <- file.path(root, "0.0.9-ba9876543210")
  other <- file.path(root, "notes")  # not a name the package makes: left alone
  for (d in c(old, recent, other)) dir.create(d)
  Sys.setFileTime(c(old, other), Sys.time() - 7200)
  dir <- rtorchpy:::.find_bundled_python(fake_python_dir())
  expect_setequal(list.files(root, all.files = TRUE, no.. = TRUE),
                  basename(c(dir, recent, other)))
})

test_that("during R CMD check the archive is unpacked under tempdir(), not in the user cache", {
  root <- local_cache()
  withr::local_envvar(`_R_CHECK_PACKAGE_NAME_` = "rtorchpy")
  dir <- rtorchpy:::.find_bundled_python(fake_python_dir())
  expect_equal(dirname(dir), file.path(tempdir(), "rtorchpy-python"))
  expect_false(dir.exists(root))
})

test_that("a user cache that cannot be written falls back to tempdir()", {
  blocker <- withr::local_tempfile()
  writeLines("", blocker)  # a file where the cache's parent directory should be
  withr::local_envvar(R_USER_CACHE_DIR = blocker, `_R_CHECK_PACKAGE_NAME_` = NA)
  dir <- rtorchpy:::.find_bundled_python(fake_python_dir())
  expect_equal(dirname(dir), file.path(tempdir(), "rtorchpy-python"))
  expect_true(file.exists(file.path(dir, "rtorchpy", "__init__.py")))
})

test_that("an archive that cannot be unpacked is an error naming it", {
  local_cache()
  python_dir <- withr::local_tempdir()
  writeLines("not an archive", file.path(python_dir, "rtorchpy.tar.xz"))
  expect_error(rtorchpy:::.find_bundled_python(python_dir),
               "rtorchpy.tar.xz) could not be unpacked", fixed = TRUE, class = "runtime_error")
})

test_that("an unpacked rtorchpy/ is used where it is, and no python/ means none", {
  local_cache()
  python_dir <- withr::local_tempdir()
  dir.create(file.path(python_dir, "rtorchpy"))
  writeLines("", file.path(python_dir, "rtorchpy", "__init__.py"))
  expect_equal(rtorchpy:::.find_bundled_python(python_dir), python_dir)
  expect_equal(rtorchpy:::.find_bundled_python(""), "")
})

test_that("the loaded package runs from its unpacked copy", {
  skip_if_not(rtorchpy_available())
  dir <- rtorchpy:::.bundled_python_dir()
  expect_true(file.exists(file.path(dir, "rtorchpy", "__init__.py")))
  expect_true(rtorchpy_config()$rtorchpy_bundled)
})
