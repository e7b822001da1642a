/*
 * fmap.h - a file mapped read-only that another process may shrink.
 *
 * A read of a mapped page that lies past the end of its file raises
 * SIGBUS, and the default action kills the process. A build tree is a
 * place where files are rewritten while a scan runs (cp over a library
 * truncates it in place), and the ELF reader and the resolver read mappings long
 * after they were made. So every lo_fmap is registered, and a SIGBUS
 * handler, installed on the first lo_fmap_new, replaces a vanished page of
 * a registered mapping with a page of zeros, marks the mapping, and lets
 * the read go on. The readers check every offset they take from a file, so
 * zeros are only one more malformed input; the owner then asks
 * lo_fmap_shrank and reports the file as changed while it was read. A
 * SIGBUS anywhere else goes to the handler that was there before (by
 * default: the process dies, as it would have).
 * Does not own: parsing what is mapped (elf.h), nor deciding what a
 * shrunk file means for its verdict (its owner).
 */
#ifndef LEFTOVER_FMAP_H
#define LEFTOVER_FMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lo_fmap lo_fmap;

/*
 * Map `size` bytes (at least one) of the open file `fd` from `offset`,
 * read-only (private); lo_fmap_data points at the byte at `offset`, which
 * need not be on a page boundary. The descriptor may be closed afterwards.
 * `name` is for the message. Returns 0, or LO_ERROR with a message when
 * mmap fails (a file larger than the address space or a mapping limit
 * allows, say).
 */
int lo_fmap_new(lo_fmap **out, int fd, size_t offset, size_t size, const char *name);
void lo_fmap_free(lo_fmap *m);

const void *lo_fmap_data(const lo_fmap *m);
size_t lo_fmap_size(const lo_fmap *m);

/* Has a read of the mapping found part of the file gone (read as zeros)? */
bool lo_fmap_shrank(const lo_fmap *m);

/*
 * Let the kernel drop the pages of n mappings from memory, in one call where
 * the system has one (far cheaper than one call each: os/proc_linux.c says
 * why); a later read brings them
 * back from the file.
 */
void lo_fmap_release_many(const lo_fmap *const *maps, size_t n);

#endif
