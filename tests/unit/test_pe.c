/*
 * test_pe.c - the PE reader (pe.h) against llvm-readobj on DLLs built here
 * with MinGW-w64 (x86-64 and i686) and lld-link (a delay-load import):
 * every import (by name with its hint, by ordinal, delay-loaded) and
 * every export (named, by ordinal only, forwarded by name and by
 * ordinal) as llvm-readobj --coff-imports --coff-exports lists them; the
 * loader's lookups by name, hint and ordinal; and every truncation of a
 * real DLL read without a fault.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/pe.h"
#include "unit.h"

static char work[4096];

static const char LIB_C[] = "__declspec(dllexport) int alpha(void) { return 1; }\n"
			    "__declspec(dllexport) int beta(void) { return 2; }\n"
			    "int hidden_by_ord(void) { return 3; }\n";
static const char LIB_DEF[] = "LIBRARY lib.dll\nEXPORTS\n  alpha\n  beta\n"
			      "  gamma = hidden_by_ord @7 NONAME\n"
			      "  fwd = kernel32.GetTickCount\n  fwd2 = \"other.#5\"\n";
static const char USE_C[] = "__declspec(dllimport) int alpha(void);\n"
			    "__declspec(dllimport) int gamma_(void) __asm__(\"gamma\");\n"
			    "__declspec(dllexport) int use(void) { return alpha() + gamma_(); }\n";
static const char DELAY_C[] = "__declspec(dllimport) int beta(void);\n"
			      "int use(void) { return beta(); }\n"
			      "void *__delayLoadHelper2(void *d, void **f) { (void)d; return *f; }\n";

/* Write `text` to WORK/name. */
static void put(const char *name, const char *text)
{
	unit_put(work, name, text);
}

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	char cmd[4200];

	(void)state;
	snprintf(work, sizeof(work), "%s/pe", base ? base : "/tmp");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", work);
	return system(cmd) ? -1 : 0;
}

/* Build the fixtures for compiler prefix `cc` ("x86_64-w64-mingw32"); false when it is missing. */
static bool build(const char *cc)
{
	char check[256];

	snprintf(check, sizeof(check), "command -v %s-gcc >/dev/null", cc);
	if (system(check))
		return false;
	put("lib.c", LIB_C);
	put("lib.def", LIB_DEF);
	put("use.c", USE_C);
	sh("cd '%s' && %s-gcc -shared -o lib.dll lib.c lib.def -Wl,--out-implib,liblib.a && "
	   "%s-gcc -shared -o use.pyd use.c -L. -llib", work, cc, cc);
	return true;
}

/* The lines of llvm-readobj's listing this test compares: names, symbols, ordinals. */
static void readobj(const char *file, lo_buf *out)
{
	char cmd[8400], line[4096];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "llvm-readobj-19 --coff-imports --coff-exports '%s/%s'", work,
		 file);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p)) {
		const char *s = line + strspn(line, " ");

		if (!strncmp(s, "Name:", 5) || !strncmp(s, "Symbol:", 7) ||
		    !strncmp(s, "Ordinal:", 8) || !strncmp(s, "ForwardedTo:", 12) ||
		    !strncmp(s, "DelayImport {", 13))
			lo_buf_puts(out, s);
	}
	assert_int_equal(pclose(p), 0);
}

/* The same lines from the reader. */
static void render(const lo_pe *pe, lo_buf *out)
{
	const char *dll = NULL;
	bool delay = false;
	size_t i;

	for (i = 0; i < lo_pe_import_count(pe); i++) {
		const lo_pe_import *im = lo_pe_import_at(pe, i);

		if (!dll || strcmp(dll, im->dll) || delay != im->delay) {
			if (im->delay)
				lo_buf_puts(out, "DelayImport {\n");
			lo_buf_printf(out, "Name: %s\n", im->dll);
			dll = im->dll;
			delay = im->delay;
		}
		if (im->name)
			lo_buf_printf(out, "Symbol: %s (%u)\n", im->name, im->hint);
		else
			lo_buf_printf(out, "Symbol:  (%u)\n", im->ordinal);
	}
	for (i = 0; i < lo_pe_export_count(pe); i++) {
		const lo_pe_export *ex = lo_pe_export_at(pe, i);

		lo_buf_printf(out, "Ordinal: %u\nName: %s\n", ex->ordinal, ex->name ? ex->name : "");
		if (ex->forward)
			lo_buf_printf(out, "ForwardedTo: %s\n", ex->forward);
	}
}

static lo_pe *open_fixture(const char *file)
{
	char path[4200];
	lo_pe *pe = NULL;

	snprintf(path, sizeof(path), "%s/%s", work, file);
	if (lo_pe_open(&pe, path, file) < 0)
		fail_msg("%s", lo_error_last());
	return pe;
}

static void agree_with_readobj(const char *file)
{
	lo_buf want = LO_BUF_INIT, got = LO_BUF_INIT;
	lo_pe *pe = open_fixture(file);

	readobj(file, &want);
	render(pe, &got);
	assert_string_equal(lo_buf_cstr(&got), lo_buf_cstr(&want));
	lo_buf_dispose(&want);
	lo_buf_dispose(&got);
	lo_pe_free(pe);
}

static void check_lookups(uint16_t machine)
{
	lo_pe *lib = open_fixture("lib.dll"), *use = open_fixture("use.pyd");
	const lo_pe_export *ex;

	assert_int_equal(lo_pe_machine(lib), machine);
	assert_true(lo_pe_is_dll(lib));
	assert_int_equal(lo_pe_is_pe32plus(lib), machine != LO_PE_MACHINE_I386);
	assert_string_equal(lo_pe_export_dll_name(lib), "lib.dll");
	/* a wrong hint falls back to the binary search */
	assert_non_null(ex = lo_pe_export_by_name(lib, "beta", 0));
	assert_string_equal(ex->name, "beta");
	assert_null(lo_pe_export_by_name(lib, "gamma", 0));
	assert_non_null(ex = lo_pe_export_by_ordinal(lib, 7));
	assert_null(ex->name);
	assert_null(lo_pe_export_by_ordinal(lib, 8));
	assert_null(lo_pe_export_by_ordinal(lib, 2));
	assert_string_equal(lo_pe_export_by_name(lib, "fwd2", 0)->forward, "other.#5");
	/* use.pyd imports alpha by name and gamma by ordinal 7 */
	assert_string_equal(lo_pe_import_at(use, 0)->name, "alpha");
	assert_null(lo_pe_import_at(use, 1)->name);
	assert_int_equal(lo_pe_import_at(use, 1)->ordinal, 7);
	lo_pe_free(lib);
	lo_pe_free(use);
}

static void test_x64_agrees_with_readobj(void **state)
{
	(void)state;
	if (!build("x86_64-w64-mingw32"))
		skip();
	agree_with_readobj("lib.dll");
	agree_with_readobj("use.pyd");
	check_lookups(LO_PE_MACHINE_AMD64);
}

static void test_i686_agrees_with_readobj(void **state)
{
	(void)state;
	if (!build("i686-w64-mingw32"))
		skip();
	agree_with_readobj("lib.dll");
	agree_with_readobj("use.pyd");
	check_lookups(LO_PE_MACHINE_I386);
}

static void test_delay_load(void **state)
{
	lo_pe *pe;

	(void)state;
	if (!build("x86_64-w64-mingw32") || system("command -v lld-link-19 >/dev/null"))
		skip();
	put("delay.c", DELAY_C);
	sh("cd '%s' && x86_64-w64-mingw32-gcc -c delay.c && "
	   "llvm-dlltool-19 -m i386:x86-64 -d lib.def -D lib.dll -l lib.lib && "
	   "lld-link-19 /dll /noentry /out:delay.pyd delay.o lib.lib "
	   "/delayload:lib.dll /export:use >/dev/null", work);
	agree_with_readobj("delay.pyd");
	pe = open_fixture("delay.pyd");
	assert_true(lo_pe_import_at(pe, 0)->delay);
	assert_string_equal(lo_pe_import_at(pe, 0)->name, "beta");
	lo_pe_free(pe);
}

/* Every prefix of a real DLL, every byte of its headers flipped: an error or a read, no fault. */
static void test_truncated_and_flipped(void **state)
{
	char path[4200];
	unsigned char *data;
	size_t size, n;
	FILE *f;
	lo_pe *pe;

	(void)state;
	if (!build("x86_64-w64-mingw32"))
		skip();
	snprintf(path, sizeof(path), "%s/use.pyd", work);
	assert_non_null(f = fopen(path, "rb"));
	data = malloc(1 << 20);
	size = fread(data, 1, 1 << 20, f);
	fclose(f);
	for (n = 0; n < size; n += n < 2048 ? 1 : 97) {
		if (lo_pe_read(&pe, data, n, "cut.pyd") == 0)
			lo_pe_free(pe);
	}
	for (n = 0; n < 1024 && n < size; n++) {
		unsigned char was = data[n];

		data[n] = (unsigned char)~was;
		if (lo_pe_read(&pe, data, size, "flip.pyd") == 0)
			lo_pe_free(pe);
		data[n] = was;
	}
	assert_int_equal(lo_pe_read(&pe, "MZ", 2, "short.pyd"), LO_ENOTELF);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x64_agrees_with_readobj),
		cmocka_unit_test(test_i686_agrees_with_readobj),
		cmocka_unit_test(test_delay_load),
		cmocka_unit_test(test_truncated_and_flipped),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
