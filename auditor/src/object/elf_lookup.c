/*
 * elf_lookup.c - does an object define what a reference asks for, as ld.so
 * would bind it (elf.h, elf_int.h).
 *
 * A scan looks up millions of symbols, most of them refused by the GNU
 * hash table's bloom filter at the cost of a few loads; hash chains are
 * walked with explicit bounds, so a hostile table cannot loop or read
 * outside the mapping.
 */
#include <string.h>

#include "object/elf_int.h"

/*
 * dl_new_hash: h = h * 33 + c over the name's bytes. Taken two bytes a
 * step, as h * 33 * 33 + a * 33 + b: every undefined name of every load is
 * hashed (a seventh of a scan's instructions), and the step's two
 * multiplies no longer wait for each other.
 */
uint32_t lo_elf_gnu_hash(const char *name)
{
	uint32_t h = 5381;
	const unsigned char *s = (const unsigned char *)name;

	for (; s[0] && s[1]; s += 2)
		h = h * (33 * 33) + s[0] * 33u + s[1];
	if (s[0])
		h = h * 33 + s[0];
	return h;
}

static uint32_t sysv_hash(const char *name)
{
	uint32_t h = 0, g;
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++) {
		h = (h << 4) + *s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* The state of one lookup across the symbols of one name (do_lookup_x). */
typedef struct {
	const lo_elf_undef *ref;
	bool found;
	size_t versioned; /* non-hidden, non-default versions seen for an unversioned ref */
} lookup;

/* glibc's check_match plus the binding test of do_lookup_x, for symbol i. */
static void lookup_try(const lo_elf *e, size_t i, lookup *lk)
{
	const lo_elf64_sym *sym;
	const char *name;
	int stt, bind;

	if (i == 0 || i >= e->dynsym_count)
		return;
	sym = &e->dynsym[i];
	stt = LO_ELF64_ST_TYPE(sym->st_info);
	bind = LO_ELF64_ST_BIND(sym->st_info);
	if (sym->st_shndx == LO_SHN_UNDEF)
		return;
	if (sym->st_value == 0 && sym->st_shndx != LO_SHN_ABS && stt != LO_STT_TLS)
		return;
	if (stt != LO_STT_NOTYPE && stt != LO_STT_OBJECT && stt != LO_STT_FUNC && stt != LO_STT_COMMON &&
	    stt != LO_STT_TLS && stt != LO_STT_GNU_IFUNC)
		return;
	if (bind != LO_STB_GLOBAL && bind != LO_STB_WEAK && bind != LO_STB_GNU_UNIQUE)
		return;
	name = lo_elf_dynstr(e, sym->st_name);
	if (!name || strcmp(name, lk->ref->name))
		return;
	if (!e->versym) {
		lk->found = true;
		return;
	}
	{
		unsigned vs = e->versym[i];
		size_t ndx = vs & 0x7fff;
		const char *def = ndx < e->verdefs.count ? e->verdefs.names[ndx] : NULL;
		bool hidden = (vs & 0x8000) != 0;

		if (lk->ref->version) {
			if ((def && !strcmp(def, lk->ref->version)) ||
			    (!def && !hidden && !lk->ref->version_hidden))
				lk->found = true;
		} else if (ndx < 3) {
			lk->found = true;
		} else if (!hidden) {
			lk->versioned++;
		}
	}
}

/*
 * The bloom filter's word and the bucket a lookup of hash h reads, as
 * ld.so finds them (dl-lookup.c): the word index masked with bloom_size - 1.
 */
static void gnu_slots(const lo_elf *e, uint32_t h, const unsigned char **bloom,
		      const uint32_t **bucket)
{
	size_t word = e->gnu.bloom_bits == 64 ? h / 64 : h / 32; /* not a division by a variable */

	*bloom = e->gnu.bloom + e->gnu.bloom_bits / 8 * (word & e->gnu.bloom_mask);
	*bucket = &e->gnu.buckets[h % e->gnu.nbuckets];
}

static bool lookup_gnu(const lo_elf *e, lookup *lk)
{
	uint32_t h = lk->ref->gnu_hash, symoffset = e->gnu.symoffset;
	const unsigned char *bloom;
	const uint32_t *bucket;
	uint64_t word, mask;
	size_t i, steps;

	if (!e->gnu.usable)
		return false;
	gnu_slots(e, h, &bloom, &bucket);
	/* memcpy: the section is only guaranteed 4-byte aligned by our check */
	if (e->gnu.bloom_bits == 64) {
		memcpy(&word, bloom, sizeof(word));
	} else {
		uint32_t narrow;

		memcpy(&narrow, bloom, sizeof(narrow));
		word = narrow;
	}
	/*
	 * As ld.so computes it (dl-lookup.c): the 32-bit hash shifted by the
	 * file's bloom_shift, which glibc's x86-64 code does with a 32-bit
	 * shift that takes the count mod 32 (tests/unit/test_hardening.c holds
	 * this against dlsym for shifts 0..2^32-1). Written out so that no
	 * shift is undefined in C (a shift of 32 or more was, found by
	 * fuzz/fuzz_elf); a mask, not `%`, since bloom_bits (32 or 64) is not
	 * known to the compiler.
	 */
	mask = (1ull << (h & (e->gnu.bloom_bits - 1))) |
	       (1ull << ((h >> (e->gnu.bloom_shift & 31)) & (e->gnu.bloom_bits - 1)));
	if ((word & mask) != mask)
		return true; /* definitely absent */
	i = *bucket;
	if (i < symoffset)
		return true;
	for (steps = 0; steps < LO_ELF_MAX_CHAIN; steps++, i++) {
		size_t ci = i - symoffset;
		uint32_t ch;

		if (ci >= e->gnu.chain_words || i >= e->dynsym_count)
			return true;
		ch = e->gnu.chain[ci];
		if ((ch | 1u) == (h | 1u))
			lookup_try(e, i, lk);
		if (ch & 1u)
			break;
	}
	return true;
}

static bool lookup_sysv(const lo_elf *e, lookup *lk)
{
	const uint32_t *w = e->sysv_hash;
	uint32_t nbucket, nchain, i;
	size_t steps;

	if (e->sysv_hash_words < 2)
		return false;
	nbucket = w[0];
	nchain = w[1];
	if (!nbucket || (size_t)nbucket + nchain > e->sysv_hash_words - 2)
		return false;
	i = w[2 + sysv_hash(lk->ref->name) % nbucket];
	/* A chain may only visit each of nchain entries once; more is a loop. */
	for (steps = 0; i != 0 && i < nchain && steps < nchain; steps++) {
		lookup_try(e, i, lk);
		i = w[2 + nbucket + i];
	}
	return true;
}

void lo_elf_prefetch(const lo_elf *e, uint32_t hash, bool deep)
{
	const unsigned char *bloom;
	const uint32_t *bucket;
	uint32_t i;

	if (!e->dynsym || !e->gnu.usable)
		return;
	gnu_slots(e, hash, &bloom, &bucket);
	if (!deep) {
		__builtin_prefetch(bloom);
		__builtin_prefetch(bucket);
		return;
	}
	i = *bucket;
	if (i < e->gnu.symoffset || i >= e->dynsym_count || i - e->gnu.symoffset >= e->gnu.chain_words)
		return;
	__builtin_prefetch(&e->gnu.chain[i - e->gnu.symoffset]);
	__builtin_prefetch(&e->dynsym[i]);
	if (e->versym)
		__builtin_prefetch(&e->versym[i]);
}

bool lo_elf_defines(const lo_elf *e, const lo_elf_undef *ref)
{
	lookup lk = { ref, false, 0 };
	size_t i;

	if (!e->dynsym)
		return false;
	if (!lookup_gnu(e, &lk) && !lookup_sysv(e, &lk))
		for (i = 1; i < e->dynsym_count; i++) /* no usable hash table: look at all */
			lookup_try(e, i, &lk);
	/* An unversioned reference takes a lone versioned definition (do_lookup_x). */
	return lk.found || lk.versioned == 1;
}

void lo_elf_foreach_defined_hash(const lo_elf *e, void (*fn)(uint32_t hash, void *payload),
				 void *payload)
{
	size_t i;

	for (i = 1; i < e->dynsym_count; i++) {
		const char *name;

		if (e->dynsym[i].st_shndx == LO_SHN_UNDEF || !(name = lo_elf_dynstr(e, e->dynsym[i].st_name)))
			continue;
		fn(lo_elf_gnu_hash(name), payload);
	}
}

bool lo_elf_exports(const lo_elf *e, const char *name)
{
	lo_elf_undef ref = { 0 };

	ref.name = name;
	ref.gnu_hash = lo_elf_gnu_hash(name);
	return lo_elf_defines(e, &ref);
}
