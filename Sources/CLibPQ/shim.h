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

#ifdef __linux__
#include <errno.h>
#include <sys/epoll.h>

// Readiness of libpq sockets, for PostgresLibPQ's SocketReadiness (one epoll set for the process).
// epoll_event is a packed struct on x86-64; these helpers keep it out of Swift.

/// Arms `fd` once for readability (EPOLLONESHOT): modifies its entry, or adds it when the set has none.
static inline int sl_epoll_arm_readable(int epoll_fd, int fd) {
    struct epoll_event event;
    event.events = EPOLLIN | EPOLLONESHOT;
    event.data.u64 = 0;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    if (errno != ENOENT) return -1;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) == 0) return 0;
    if (errno == EEXIST) return epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
    return -1;
}

/// Waits for armed descriptors; writes up to `capacity` ready ones to `fds` and returns how many (or -1).
static inline int sl_epoll_wait_fds(int epoll_fd, int *fds, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) fds[index] = events[index].data.fd;
    return count;
}

static inline int sl_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
#endif

#endif
