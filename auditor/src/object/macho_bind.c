/*
 * macho_bind.c - what an image binds and what it exports (macho_int.h):
 * the bind opcode streams of LC_DYLD_INFO, the imports table of
 * LC_DYLD_CHAINED_FIXUPS, and the export trie.
 *
 * Only the symbols and their libraries are kept, not where they are
 * bound: dyld's question "would every bind find its symbol" does not
 * depend on the address. So the opcodes that move the address are read
 * past, and the chained fixup chains themselves (the pages' starts) are
 * not walked: each import of the table is bound at least once by the
 * linker's construction.
 *
 * Every read is checked against the range the load command gave, and the
 * range against the slice; a stream that runs out, a ULEB wider than 64
 * bits, a trie node outside the trie or a name longer than TRIE_NAME_MAX is
 * LO_EINVALID. The trie walk visits at most one node per byte of the
 * trie, so a trie whose edges point back (a loop, or a DAG that shares
 * nodes) costs no more than its size.
 */
#include <stdlib.h>
#include <string.h>

#include "leftover/error.h"
#include "object/macho_int.h"

/* A longer exported name than any linker writes. */
#define TRIE_NAME_MAX 4096

typedef struct cursor {
	const unsigned char *p, *end;
	bool bad;
} cursor;

static uint64_t uleb(cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		unsigned char byte = *c->p++;

		if (shift >= 64 || (shift == 63 && (byte & 0x7e))) {
			c->bad = true;
			return 0;
		}
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static void skip_sleb(cursor *c)
{
	while (c->p < c->end && (*c->p & 0x80))
		c->p++;
	if (c->p < c->end)
		c->p++;
	else
		c->bad = true;
}

/* The NUL-terminated string at the cursor, its length in *n. */
static const char *cstring(cursor *c, size_t *n)
{
	const char *s = (const char *)c->p;
	const unsigned char *z = memchr(c->p, '\0', (size_t)(c->end - c->p));

	if (!z) {
		c->bad = true;
		return NULL;
	}
	*n = (size_t)(z - c->p);
	c->p = z + 1;
	return s;
}

enum {
	BIND_DONE = 0x00,
	BIND_SET_DYLIB_ORDINAL_IMM = 0x10,
	BIND_SET_DYLIB_ORDINAL_ULEB = 0x20,
	BIND_SET_DYLIB_SPECIAL_IMM = 0x30,
	BIND_SET_SYMBOL = 0x40,
	BIND_SET_TYPE_IMM = 0x50,
	BIND_SET_ADDEND_SLEB = 0x60,
	BIND_SET_SEGMENT_AND_OFFSET_ULEB = 0x70,
	BIND_ADD_ADDR_ULEB = 0x80,
	BIND_DO_BIND = 0x90,
	BIND_DO_BIND_ADD_ADDR_ULEB = 0xa0,
	BIND_DO_BIND_ADD_ADDR_IMM_SCALED = 0xb0,
	BIND_DO_BIND_ULEB_TIMES_SKIPPING_ULEB = 0xc0,
	BIND_THREADED = 0xd0,
	BIND_SYMBOL_FLAGS_WEAK_IMPORT = 0x1,
	BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION = 0x8,
};

/* The state of a bind stream between two binds. */
typedef struct bind_state {
	int ordinal;
	const char *sym;
	size_t sym_len;
	unsigned flags;
} bind_state;

/*
 * One bind of the stream, as an import. A weak bind table entry coalesces
 * a weak definition (ordinal WEAK_LOOKUP, never an error); one marked as
 * the strong definition the image itself provides binds nothing.
 */
static void do_bind(lo_macho *m, const bind_state *st, bool lazy, bool weak_table)
{
	if (!st->sym)
		return;
	if (weak_table) {
		if (!(st->flags & BIND_SYMBOL_FLAGS_NON_WEAK_DEFINITION))
			lo_macho_add_import(m, st->sym, st->sym_len, LO_MACHO_ORDINAL_WEAK_LOOKUP,
					    true, false);
		return;
	}
	lo_macho_add_import(m, st->sym, st->sym_len, st->ordinal,
			    st->flags & BIND_SYMBOL_FLAGS_WEAK_IMPORT, lazy);
}

/* One opcode; false at the end of a (non-lazy) stream. */
static bool bind_opcode(lo_macho *m, cursor *c, bind_state *st, bool lazy, bool weak_table)
{
	unsigned char byte = *c->p++;
	unsigned op = byte & 0xf0, imm = byte & 0x0f;

	switch (op) {
	case BIND_DONE:
		/* the lazy stream holds one bind per entry, each ended by DONE */
		return lazy;
	case BIND_SET_DYLIB_ORDINAL_IMM:
		st->ordinal = (int)imm;
		break;
	case BIND_SET_DYLIB_ORDINAL_ULEB: {
		uint64_t o = uleb(c);

		st->ordinal = o > 0xffff ? 0xffff : (int)o;
		break;
	}
	case BIND_SET_DYLIB_SPECIAL_IMM:
		/* sign-extended: 0xe -> -2, 0xf -> -1, 0xd -> -3 */
		st->ordinal = imm ? (int)(signed char)(0xf0 | imm) : 0;
		break;
	case BIND_SET_SYMBOL:
		st->flags = imm;
		st->sym = cstring(c, &st->sym_len);
		break;
	case BIND_SET_TYPE_IMM:
		break;
	case BIND_SET_ADDEND_SLEB:
		skip_sleb(c);
		break;
	case BIND_SET_SEGMENT_AND_OFFSET_ULEB: case BIND_ADD_ADDR_ULEB:
		uleb(c);
		break;
	case BIND_DO_BIND: case BIND_DO_BIND_ADD_ADDR_IMM_SCALED:
		do_bind(m, st, lazy, weak_table);
		break;
	case BIND_DO_BIND_ADD_ADDR_ULEB:
		uleb(c);
		do_bind(m, st, lazy, weak_table);
		break;
	case BIND_DO_BIND_ULEB_TIMES_SKIPPING_ULEB:
		/* one import however many times it is bound */
		uleb(c);
		uleb(c);
		do_bind(m, st, lazy, weak_table);
		break;
	case BIND_THREADED:
		/* imm 0: the ordinal table's size; 1: apply, which binds the table's symbols */
		if (imm == 0)
			uleb(c);
		break;
	default:
		c->bad = true;
	}
	return true;
}

int lo_macho_read_binds(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size,
			bool lazy, bool weak_table)
{
	bind_state st = { 0, NULL, 0, 0 };
	cursor c;

	if (!size)
		return 0;
	if (!lo_macho_in(b, off, size))
		return lo_error_set(LO_EINVALID, "the %s bind opcodes of '%s' lie outside the file",
				    lazy ? "lazy" : weak_table ? "weak" : "", m->name);
	c = (cursor){ b->p + off, b->p + off + size, false };
	while (c.p < c.end && !c.bad && bind_opcode(m, &c, &st, lazy, weak_table))
		;
	if (c.bad)
		return lo_error_set(LO_EINVALID, "malformed %sbind opcodes in '%s' at offset %zu",
				    lazy ? "lazy " : weak_table ? "weak " : "", m->name,
				    (size_t)(c.p - b->p));
	return 0;
}

/* dyld_chained_fixups_header's imports_format values. */
enum { CHAINED_IMPORT = 1, CHAINED_IMPORT_ADDEND = 2, CHAINED_IMPORT_ADDEND64 = 3 };

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* A library ordinal of `bits` bits as a signed ordinal: the top three are the specials. */
static int chained_ordinal(uint32_t raw, unsigned bits)
{
	uint32_t max = (1u << bits) - 1;

	return raw > max - 3 ? (int)raw - (int)max - 1 : (int)raw;
}

int lo_macho_read_chained(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size)
{
	const unsigned char *h;
	uint32_t imports_off, symbols_off, count, format, compressed, i, esize;

	if (!lo_macho_in(b, off, size) || size < 28)
		return lo_error_set(LO_EINVALID, "the chained fixups of '%s' lie outside the file",
				    m->name);
	h = b->p + off;
	imports_off = rd32(h + 8);
	symbols_off = rd32(h + 12);
	count = rd32(h + 16);
	format = rd32(h + 20);
	compressed = rd32(h + 24);
	esize = format == CHAINED_IMPORT_ADDEND64 ? 16 : format == CHAINED_IMPORT_ADDEND ? 8 : 4;
	if (format < CHAINED_IMPORT || format > CHAINED_IMPORT_ADDEND64 || compressed)
		return lo_error_set(LO_EINVALID, "'%s' has chained fixup imports in a format "
				    "leftover does not read (%u, symbols %u)", m->name, format,
				    compressed);
	if (imports_off > size || (uint64_t)count * esize > size - imports_off ||
	    symbols_off > size)
		return lo_error_set(LO_EINVALID, "the chained fixup imports of '%s' run past "
				    "their command's data", m->name);
	for (i = 0; i < count; i++) {
		const unsigned char *e = h + imports_off + (size_t)i * esize;
		uint32_t w = rd32(e), name_off;
		const char *s;
		const unsigned char *z;
		int ordinal;
		bool weak;

		if (format == CHAINED_IMPORT_ADDEND64) {
			ordinal = chained_ordinal(w & 0xffff, 16);
			weak = (w >> 16) & 1;
			name_off = rd32(e + 4);
		} else {
			ordinal = chained_ordinal(w & 0xff, 8);
			weak = (w >> 8) & 1;
			name_off = w >> 9;
		}
		if (name_off >= size - symbols_off ||
		    !(z = memchr(h + symbols_off + name_off, '\0', size - symbols_off - name_off)))
			return lo_error_set(LO_EINVALID, "chained fixup import %u of '%s' has its "
					    "name outside the symbol strings", i, m->name);
		s = (const char *)h + symbols_off + name_off;
		lo_macho_add_import(m, s, (size_t)(z - (const unsigned char *)s), ordinal, weak,
				    false);
	}
	return 0;
}

/* One node to visit: where it is, and the edge that leads to it from its parent's name. */
typedef struct trie_frame {
	uint64_t node;
	size_t parent_len, edge_len;
	const char *edge;
} trie_frame;

enum { EXPORT_SYMBOL_FLAGS_REEXPORT = 0x08 };

/* The terminal information of the node at c, for the name in `name`. */
static void trie_terminal(lo_macho *m, cursor *c, const char *name, size_t len)
{
	uint64_t flags = uleb(c);

	if (flags & EXPORT_SYMBOL_FLAGS_REEXPORT) {
		uint64_t ordinal = uleb(c);
		size_t n = 0;
		const char *import = cstring(c, &n);

		if (!c->bad)
			lo_macho_add_export(m, name, len, true,
					    ordinal > 0xffff ? 0xffff : (int)ordinal, import, n);
		return;
	}
	if (!c->bad)
		lo_macho_add_export(m, name, len, false, 0, NULL, 0);
}

/*
 * Depth first, with a stack of the nodes still to visit: a frame writes
 * its edge after its parent's name in `name`, whose first parent_len
 * bytes only the parent's own ancestors wrote (every node visited since
 * the frame was pushed is a descendant of its siblings, whose names are
 * longer).
 */
int lo_macho_read_trie(lo_macho *m, const lo_macho_bytes *b, uint32_t off, uint32_t size)
{
	char name[TRIE_NAME_MAX];
	trie_frame *stack = NULL;
	size_t depth = 0, cap = 0, visits = 0;
	const unsigned char *t;
	int err = 0;

	if (!lo_macho_in(b, off, size))
		return lo_error_set(LO_EINVALID, "the export trie of '%s' lies outside the file",
				    m->name);
	t = b->p + off;
	lo_array_grow(&stack, &cap, 1, sizeof(*stack));
	stack[depth++] = (trie_frame){ 0, 0, 0, "" };
	while (depth && err >= 0) {
		trie_frame f = stack[--depth];
		size_t len = f.parent_len + f.edge_len;
		cursor c = { t + (f.node < size ? f.node : 0), t + size, false };
		uint64_t term;
		unsigned children, i;

		if (f.node >= size || ++visits > size || len >= TRIE_NAME_MAX) {
			err = lo_error_set(LO_EINVALID, "the export trie of '%s' has a node outside "
					   "it, loops, or names a symbol too long", m->name);
			break;
		}
		if (f.edge_len)
			memcpy(name + f.parent_len, f.edge, f.edge_len);
		term = uleb(&c);
		if (term > (uint64_t)(c.end - c.p)) {
			c.bad = true;
		} else if (term) {
			cursor tc = { c.p, c.p + term, false };

			trie_terminal(m, &tc, name, len);
			c.bad = tc.bad;
			c.p += term;
		}
		children = c.p < c.end && !c.bad ? *c.p++ : 0;
		for (i = 0; i < children && !c.bad; i++) {
			size_t n = 0;
			const char *edge = cstring(&c, &n);
			uint64_t child = uleb(&c);

			lo_array_grow(&stack, &cap, depth + 1, sizeof(*stack));
			stack[depth++] = (trie_frame){ child, len, n, edge };
		}
		if (c.bad)
			err = lo_error_set(LO_EINVALID, "the export trie of '%s' is malformed at "
					   "node 0x%llx", m->name, (unsigned long long)f.node);
	}
	free(stack);
	return err;
}
