/* sys/wait.h on Windows: what the code uses of it is declared in os/posix_win.h. */
