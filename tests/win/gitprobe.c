/*
 * gitprobe REPO: the three libraries leftover.exe links, cross-built with
 * MinGW-w64 from ci/build-static-deps and run under Wine (tests/win/test_deps.py).
 *
 * Opens the git repository at REPO (a Windows path, e.g. Z:\tmp\repo) with
 * libgit2, reads its HEAD commit's raw object, hashes it with nettle's
 * SHA-256, and prints one JSON object built with jansson:
 *   {"head": "refs/heads/main", "oid": "<hex>", "sha256": "<hex>"}
 * The test holds each field against git and Python's hashlib on the same
 * repository. Exit 0, or 1 with the library's message on stderr.
 */
#include <git2.h>
#include <jansson.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what)
{
	const git_error *e = git_error_last();
	fprintf(stderr, "gitprobe: %s: %s\n", what, e ? e->message : "failed");
	return 1;
}

static void hex(const uint8_t *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Prints the probe's JSON for HEAD and its commit; 0, or -1 on an error. */
static int probe(git_reference *head, git_odb_object *commit)
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char digest_hex[2 * SHA256_DIGEST_SIZE + 1];
	char oid[GIT_OID_HEXSZ + 1];

	sha256_init(&ctx);
	sha256_update(&ctx, git_odb_object_size(commit), git_odb_object_data(commit));
	sha256_digest(&ctx, sizeof digest, digest);
	hex(digest, sizeof digest, digest_hex);
	git_oid_tostr(oid, sizeof oid, git_odb_object_id(commit));

	json_t *out = json_pack("{s:s, s:s, s:s}", "head", git_reference_name(head), "oid", oid,
				"sha256", digest_hex);
	char *text = out ? json_dumps(out, JSON_SORT_KEYS) : NULL;
	if (text)
		puts(text);
	free(text);
	json_decref(out);
	return text ? 0 : -1;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_odb *odb = NULL;
	git_odb_object *commit = NULL;
	int status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: gitprobe REPO\n");
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open(&repo, argv[1]) < 0)
		status = fail(argv[1]);
	else if (git_repository_head(&head, repo) < 0)
		status = fail("HEAD");
	else if (git_repository_odb(&odb, repo) < 0 || git_odb_read(&commit, odb, git_reference_target(head)) < 0)
		status = fail("HEAD's commit");
	else if (probe(head, commit) < 0)
		fprintf(stderr, "gitprobe: jansson could not build the JSON\n");
	else
		status = 0;
	git_odb_object_free(commit);
	git_odb_free(odb);
	git_reference_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return status;
}
