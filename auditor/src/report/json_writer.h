/*
 * json_writer.h - a JSON document written as it is produced, in 64 KiB
 * blocks, with no tree of values in between.
 *
 * The text is byte for byte what jansson's dump writes for the same values
 * with JSON_INDENT(1) (the format docs/json.md shows and users diff): a
 * member or element on a line of its own, indented a space per level,
 * "key": value, empty containers as {} and [], strings escaped as jansson
 * escapes them (\" \\ \b \f \n \r \t, other control bytes \u00XX, every
 * other byte as it is). jansson built an object per file, then escaped it
 * a byte at a time through a callback: four fifths of the instructions
 * of a warm scan (the verdict cache's kept result, bench tree at scale 1).
 *
 * Strings must be valid UTF-8 (report.c escapes file names that are not);
 * write errors stick and are returned by lo_json_writer_finish.
 */
#ifndef LEFTOVER_JSON_WRITER_H
#define LEFTOVER_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

typedef struct lo_json_writer lo_json_writer;

lo_json_writer *lo_json_writer_new(FILE *out);
/* Write out what is left, then a line break; 0, or -1 when a write failed. */
int lo_json_writer_finish(lo_json_writer *w);
void lo_json_writer_free(lo_json_writer *w);

void lo_json_object_open(lo_json_writer *w);
void lo_json_array_open(lo_json_writer *w);
/* Close the innermost open object or array. */
void lo_json_close(lo_json_writer *w);
/* The key of the next member of the open object: written as it is, nothing in it to escape. */
void lo_json_key(lo_json_writer *w, const char *key);

/* A string, or null for NULL. */
void lo_json_str(lo_json_writer *w, const char *s);
void lo_json_bool(lo_json_writer *w, bool b);
void lo_json_null(lo_json_writer *w);
void lo_json_int(lo_json_writer *w, long long v);

#endif
