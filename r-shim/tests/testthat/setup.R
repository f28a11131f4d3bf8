old_opts <- options(warnPartialMatchArgs = TRUE, warnPartialMatchAttr = TRUE,
                    warnPartialMatchDollar = TRUE)
withr::defer(options(old_opts), teardown_env())
Sys.setenv(KMP_DUPLICATE_LIB_OK = TRUE)
