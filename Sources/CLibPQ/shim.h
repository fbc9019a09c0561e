// The libpq client API for Swift. Character-literal macros such as PG_DIAG_SQLSTATE ('C') do not
// import into Swift, so they are re-exported here as constants with an SL_ prefix.
#ifndef SUBLEDGER_CLIBPQ_SHIM_H
#define SUBLEDGER_CLIBPQ_SHIM_H

#include <libpq-fe.h>
#include <postgres_ext.h>

static const int SL_PG_DIAG_SEVERITY = PG_DIAG_SEVERITY;
static const int SL_PG_DIAG_SEVERITY_NONLOCALIZED = PG_DIAG_SEVERITY_NONLOCALIZED;
static const int SL_PG_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int SL_PG_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int SL_PG_DIAG_MESSAGE_DETAIL = PG_DIAG_MESSAGE_DETAIL;
static const int SL_PG_DIAG_MESSAGE_HINT = PG_DIAG_MESSAGE_HINT;
static const int SL_PG_DIAG_STATEMENT_POSITION = PG_DIAG_STATEMENT_POSITION;
static const int SL_PG_DIAG_INTERNAL_POSITION = PG_DIAG_INTERNAL_POSITION;
static const int SL_PG_DIAG_INTERNAL_QUERY = PG_DIAG_INTERNAL_QUERY;
static const int SL_PG_DIAG_CONTEXT = PG_DIAG_CONTEXT;
static const int SL_PG_DIAG_SCHEMA_NAME = PG_DIAG_SCHEMA_NAME;
static const int SL_PG_DIAG_TABLE_NAME = PG_DIAG_TABLE_NAME;
static const int SL_PG_DIAG_COLUMN_NAME = PG_DIAG_COLUMN_NAME;
static const int SL_PG_DIAG_DATATYPE_NAME = PG_DIAG_DATATYPE_NAME;
static const int SL_PG_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME;
static const int SL_PG_DIAG_SOURCE_FILE = PG_DIAG_SOURCE_FILE;
static const int SL_PG_DIAG_SOURCE_LINE = PG_DIAG_SOURCE_LINE;
static const int SL_PG_DIAG_SOURCE_FUNCTION = PG_DIAG_SOURCE_FUNCTION;

#endif
