/* The exit codes of every program of the project (documented in docs/README.md). */
#ifndef REDUCE_EXIT_CODES_H
#define REDUCE_EXIT_CODES_H

enum { EXIT_OK = 0, EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_GPU = 3, EXIT_NO_RECORD = 5 };
/* EXIT_NO_RECORD: the tree program (make stage-NN tree) cannot record the kernel asked for (it says why). */
#endif
