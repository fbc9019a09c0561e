extension PostgresConnection {
    /// Runs `body` in one transaction attempt: BEGIN, body, COMMIT; ROLLBACK and rethrow if anything throws.
    ///
    /// BEGIN is sent with the body's first statement (in the same round trip when that is a `pipeline`), and
    /// not at all when the body sends none. COMMIT is sent after the body, unless the body sent it with its last
    /// batch (`pipeline(_:committing:)`). No retry here: `PostgresPool.transaction` retries serialization
    /// failures and deadlocks.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted,
        _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        guard transactionStatus == .idle else {
            throw PostgresError(.unexpectedResult, message: "transaction() called inside an open transaction")
        }
        pendingBegin = "BEGIN ISOLATION LEVEL \(isolation.rawValue)"
        errorThatAbortedTransaction = nil
        committedInBody = false
        let value: T
        do {
            value = try body(self)
        } catch {
            // After a COMMIT sent with the body's last batch there is nothing to roll back: the body's error is
            // its own (it must not throw once committed, `pipeline(_:committing:)` says so).
            if committedInBody {
                committedInBody = false
            } else {
                rollbackQuietly()
            }
            throw error
        }
        if committedInBody {
            committedInBody = false
            return value
        }
        if pendingBegin != nil {
            // The body sent nothing: there is no transaction to commit.
            pendingBegin = nil
            return value
        }
        let commit: PostgresRows
        do {
            commit = try PostgresSpan.traced("postgres.commit", { _ in }) { try query(text: "COMMIT") }
        } catch {
            // A failed COMMIT ends the transaction on the server already; this only tidies odd states.
            rollbackQuietly()
            throw error
        }
        try checkCommitted(commit)
        return value
    }

    /// Throws when `commit`, the answer to a COMMIT, is the tag ROLLBACK: a COMMIT of a failed transaction
    /// "succeeds" with that tag when the body swallowed an error, and the error is the one that aborted it.
    func checkCommitted(_ commit: PostgresRows) throws {
        guard commit.commandTag == "ROLLBACK" else { return }
        let cause = errorThatAbortedTransaction
        errorThatAbortedTransaction = nil
        var error = PostgresError(
            .transactionAborted,
            message: "COMMIT rolled back: an earlier statement failed" + (cause.map { " (\($0.message))" } ?? ""),
            sqlState: cause?.sqlState)
        error.constraintName = cause?.constraintName
        throw error
    }

    /// Rolls back if a transaction is open; errors are ignored because the connection's health is
    /// judged separately (a broken connection is discarded by the pool).
    func rollbackQuietly() {
        if pendingBegin != nil {
            // BEGIN was never sent.
            pendingBegin = nil
            errorThatAbortedTransaction = nil
            return
        }
        switch transactionStatus {
        case .inTransaction, .inFailedTransaction, .active:
            _ = try? query(text: "ROLLBACK")
        case .idle, .unknown:
            break
        }
        errorThatAbortedTransaction = nil
    }
}
