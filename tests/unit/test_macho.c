/*
 * test_macho.c - what the Mach-O and text stub readers take from inputs
 * no linker here writes (macho.h): an image with a symbol table and no
 * bind information (its n_desc library ordinals), a trie re-export entry,
 * a fat header told apart from a Java class file, a stub with inlined
 * documents and Objective-C classes, and offsets that point outside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/error.h"
#include "leftover/macho.h"

static const uint64_t cpus[] = { LO_MACHO_CPU_ARM64, LO_MACHO_CPU_X86_64 };

typedef struct image {
	unsigned char b[1024];
	size_t n;
} image;

static void put32(image *im, size_t at, uint32_t v)
{
	im->b[at] = (unsigned char)v;
	im->b[at + 1] = (unsigned char)(v >> 8);
	im->b[at + 2] = (unsigned char)(v >> 16);
	im->b[at + 3] = (unsigned char)(v >> 24);
}

static void add32(image *im, uint32_t v)
{
	put32(im, im->n, v);
	im->n += 4;
}

static void add_bytes(image *im, const void *p, size_t n)
{
	memcpy(im->b + im->n, p, n);
	im->n += n;
}

/*
 * An arm64 MH_BUNDLE, two-level: LC_LOAD_DYLIB "@rpath/libA.dylib",
 * LC_SYMTAB (undefined _a from ordinal 1, weak _w looked up flat), and
 * an LC_DYLD_EXPORTS_TRIE with _own and _r, re-exported from dylib 1 as _orig.
 */
static void bundle(image *im)
{
	static const unsigned char trie[27] = {
		0, 2, '_', 'o', 'w', 'n', 0, 13, '_', 'r', 0, 17, /* 0: the root, two edges */
		0,                                               /* 12: padding */
		2, 0, 0, 0,                                      /* 13: _own, address 0 */
		8, 8, 1, '_', 'o', 'r', 'i', 'g', 0, 0,          /* 17: _r, re-export 1 _orig */
	};
	size_t symoff, stroff, trieoff;

	memset(im, 0, sizeof(*im));
	add32(im, 0xfeedfacf);
	add32(im, LO_MACHO_CPU_ARM64);
	add32(im, 0);
	add32(im, LO_MACHO_BUNDLE);
	add32(im, 3);
	add32(im, 48 + 24 + 16);
	add32(im, 0x80); /* MH_TWOLEVEL */
	add32(im, 0);
	add32(im, 0xc); /* LC_LOAD_DYLIB */
	add32(im, 48);
	add32(im, 24);
	add32(im, 0);
	add32(im, 0x10000);
	add32(im, 0x10000);
	add_bytes(im, "@rpath/libA.dylib\0\0\0\0\0\0", 24);
	add32(im, 0x2); /* LC_SYMTAB, filled below */
	add32(im, 24);
	im->n += 16;
	add32(im, 0x33 | 0x80000000u); /* LC_DYLD_EXPORTS_TRIE */
	add32(im, 16);
	im->n += 8;
	symoff = im->n;
	/* nlist_64: strx, type N_UNDF|N_EXT, sect 0, desc (ordinal << 8 | N_WEAK_REF) */
	add32(im, 1);
	add_bytes(im, "\x01\x00\x00\x01", 4);
	im->n += 8;
	add32(im, 4);
	add_bytes(im, "\x01\x00\x40\xfe", 4);
	im->n += 8;
	stroff = im->n;
	add_bytes(im, "\0_a\0_w\0", 7);
	put32(im, 32 + 48 + 8, (uint32_t)symoff);
	put32(im, 32 + 48 + 12, 2);
	put32(im, 32 + 48 + 16, (uint32_t)stroff);
	put32(im, 32 + 48 + 20, 7);
	trieoff = im->n;
	add_bytes(im, trie, sizeof(trie));
	put32(im, 32 + 48 + 24 + 8, (uint32_t)trieoff);
	put32(im, 32 + 48 + 24 + 12, 27);
}

static void symtab_ordinals_and_trie_reexports(void **state)
{
	image im;
	lo_macho *m;
	const lo_macho_export *e;

	(void)state;
	bundle(&im);
	assert_int_equal(lo_macho_open_mem(&m, im.b, im.n, "b.so", cpus, 2), 0);
	assert_string_equal(lo_macho_imports_from(m), "symtab");
	assert_int_equal(lo_macho_import_count(m), 2);
	assert_string_equal(lo_macho_import_at(m, 0)->name, "_a");
	assert_int_equal(lo_macho_import_at(m, 0)->ordinal, 1);
	assert_false(lo_macho_import_at(m, 0)->weak);
	assert_string_equal(lo_macho_import_at(m, 1)->name, "_w");
	assert_int_equal(lo_macho_import_at(m, 1)->ordinal, LO_MACHO_ORDINAL_FLAT);
	assert_true(lo_macho_import_at(m, 1)->weak);
	assert_int_equal(lo_macho_export_count(m), 2);
	assert_non_null(lo_macho_find_export(m, "_own"));
	e = lo_macho_find_export(m, "_r");
	assert_non_null(e);
	assert_true(e->reexport);
	assert_int_equal(e->ordinal, 1);
	assert_string_equal(e->import, "_orig");
	assert_string_equal(lo_macho_dylib_at(m, 0)->name, "@rpath/libA.dylib");
	lo_macho_free(m);
	/* an x86-64 Mac alone has no slice for it */
	assert_int_equal(lo_macho_open_mem(&m, im.b, im.n, "b.so", cpus + 1, 1), LO_ENOTFOUND);
}

static void offsets_outside_are_invalid(void **state)
{
	image im;
	lo_macho *m;

	(void)state;
	bundle(&im);
	put32(&im, 32 + 48 + 8, 0xfffffff0u); /* symoff */
	assert_int_equal(lo_macho_open_mem(&m, im.b, im.n, "b.so", cpus, 2), LO_EINVALID);
	bundle(&im);
	im.b[im.n - 27 + 7] = 0; /* the edge to _own leads back to the root: a loop */
	assert_int_equal(lo_macho_open_mem(&m, im.b, im.n, "b.so", cpus, 2), LO_EINVALID);
	bundle(&im);
	put32(&im, 20, 4096); /* sizeofcmds past the end */
	assert_int_equal(lo_macho_open_mem(&m, im.b, im.n, "b.so", cpus, 2), LO_EINVALID);
}

static void java_class_is_not_fat(void **state)
{
	static const unsigned char java[16] = { 0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x41 };
	static const unsigned char fat[16] = { 0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2 };
	lo_macho *m;

	(void)state;
	assert_false(lo_macho_sniff(java, sizeof(java)));
	assert_true(lo_macho_sniff(fat, sizeof(fat)));
	assert_int_equal(lo_macho_open_mem(&m, java, sizeof(java), "A.class", cpus, 2), LO_ENOTELF);
	/* two arches announced, none there */
	assert_int_equal(lo_macho_open_mem(&m, fat, sizeof(fat), "u.so", cpus, 2), LO_EINVALID);
}

static void text_stub_documents(void **state)
{
	static const char tbd[] =
		"--- !tapi-tbd\n"
		"tbd-version: 4\n"
		"targets: [ arm64-macos ]\n"
		"install-name: '/usr/lib/libSystem.B.dylib'\n"
		"current-version: 1319.100.3\n"
		"reexported-libraries:\n"
		"  - targets: [ arm64-macos ]\n"
		"    libraries: [ '/usr/lib/system/libsystem_c.dylib' ]\n"
		"exports:\n"
		"  - targets: [ arm64-macos ]\n"
		"    symbols: [ dyld_stub_binder,\n"
		"               _mach_task_self_ ]\n"
		"    objc-classes: [ NSThing ]\n"
		"--- !tapi-tbd\n"
		"tbd-version: 4\n"
		"install-name: '/usr/lib/system/libsystem_c.dylib'\n"
		"exports:\n"
		"  - targets: [ arm64-macos ]\n"
		"    symbols: [ _printf ]\n"
		"...\n";
	lo_macho *m;
	const lo_macho *c;

	(void)state;
	assert_int_equal(lo_macho_open_tbd_mem(&m, tbd, sizeof(tbd) - 1, "libSystem.B.tbd"), 0);
	assert_string_equal(lo_macho_install_name(m), "/usr/lib/libSystem.B.dylib");
	assert_int_equal(lo_macho_current_version(m), (1319u << 16) | (100u << 8) | 3u);
	assert_true(lo_macho_exports_known(m));
	assert_non_null(lo_macho_find_export(m, "dyld_stub_binder"));
	assert_non_null(lo_macho_find_export(m, "_mach_task_self_"));
	assert_non_null(lo_macho_find_export(m, "_OBJC_CLASS_$_NSThing"));
	assert_non_null(lo_macho_find_export(m, "_OBJC_METACLASS_$_NSThing"));
	assert_null(lo_macho_find_export(m, "_printf"));
	assert_int_equal(lo_macho_dylib_count(m), 1);
	assert_int_equal(lo_macho_dylib_at(m, 0)->kind, LO_MACHO_DYLIB_REEXPORT);
	c = lo_macho_tbd_inlined(m, "/usr/lib/system/libsystem_c.dylib");
	assert_non_null(c);
	assert_non_null(lo_macho_find_export(c, "_printf"));
	lo_macho_free(m);
	assert_int_equal(lo_macho_open_tbd_mem(&m, "x: 1\n", 5, "no.tbd"), LO_ENOTELF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symtab_ordinals_and_trie_reexports),
		cmocka_unit_test(offsets_outside_are_invalid),
		cmocka_unit_test(java_class_is_not_fat),
		cmocka_unit_test(text_stub_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
