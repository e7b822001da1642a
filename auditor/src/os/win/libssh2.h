/*
 * libssh2.h on Windows: leftover.exe's libgit2 is built without SSH, so
 * build/git.c's run-time look-up of libssh2_init finds nothing; only the
 * flag it would pass (libssh2's documented value) is needed to compile it.
 */
#define LIBSSH2_INIT_NO_CRYPTO 0x0001
