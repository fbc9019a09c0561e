import CLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PostgresConnection {
    /// Runs `batch`'s statements in order in one round trip (libpq's pipeline mode) and returns each one's rows,
    /// in the batch's order.
    ///
    /// What the server does is what `query(_:_:)` on each statement in turn would do, with one difference
    /// outside a transaction: the whole batch is then one implicit transaction. A statement that fails throws
    /// its error exactly as `query` would (the first failure's; SQLSTATE, constraint and message alike), and
    /// the statements after it are not run. Inside a transaction that failure aborts the transaction, as a
    /// failing `query` does; outside one, nothing of the batch is kept. The connection leaves pipeline mode
    /// in every case but a lost connection, which is thrown as a connection error as `query` throws it.
    ///
    /// Statements go through the connection's prepared-statement cache: those not prepared yet are prepared
    /// in the same round trip, just before their first use. Parameters are checked (a text parameter with a
    /// NUL byte, too many parameters) before anything is sent. Sending does not block: while the batch is
    /// written the replies already arriving are read, so a batch of any size cannot deadlock on full buffers.
    public func pipeline(_ batch: PostgresBatch) throws -> [PostgresRows] {
        guard !batch.isEmpty else { return [] }
        // One span per batch, not per statement: a batch is one round trip.
        return try PostgresSpan.traced("postgres.pipeline", { $0.attributes["db.operation.batch.size"] = batch.count })
        {
            try runBatch(batch)
        }
    }

    /// `pipeline(batch)` as the last thing a `transaction` body sends, with `committing` true: the transaction's
    /// COMMIT goes in the same round trip, after the batch's statements, and the transaction is over when this
    /// returns (`transaction` sends no COMMIT of its own). The round trip a COMMIT costs on its own is saved.
    ///
    /// A failing statement skips the COMMIT: its error is thrown and `transaction` rolls back, as after any
    /// failure. A COMMIT that the server answers with ROLLBACK (an earlier statement failed and was swallowed) or
    /// refuses (a deferred constraint) throws as `transaction`'s own COMMIT would. The body must send nothing after
    /// this call (such a statement is refused) and must not throw once it returned: what it committed stays.
    /// Outside a transaction, or with `committing` false, this is `pipeline(batch)`.
    public func pipeline(_ batch: PostgresBatch, committing: Bool) throws -> [PostgresRows] {
        guard committing, !batch.isEmpty, transactionStatus == .inTransaction else {
            return try pipeline(batch)
        }
        // The transaction's COMMIT is in this round trip: its span is the commit's, as `transaction`'s own COMMIT.
        return try PostgresSpan.traced(
            "postgres.commit", { $0.attributes["db.operation.batch.size"] = batch.count + 1 }
        ) {
            for item in batch.items { try ParameterArrays.validate(item.values) }
            let (rows, commit) = try runPipeline(batch, thenCommit: true)
            guard let commit else {
                throw PostgresError(.unexpectedResult, message: "COMMIT sent with the batch gave no result")
            }
            committedInBody = true
            try checkCommitted(commit)
            return rows
        }
    }

    private func runBatch(_ batch: PostgresBatch) throws -> [PostgresRows] {
        switch batch.count {
        case 0: return []
        // A pending BEGIN makes two statements of one: they share the round trip.
        case 1 where pendingBegin == nil: return [try query(cached: batch.items[0].statement, batch.items[0].values)]
        default: break
        }
        let startedIdle = transactionStatus == .idle
        do {
            return try runPipeline(batch, thenCommit: false).rows
        } catch let error as PostgresError where error.sqlState == .invalidSQLStatementName && startedIdle {
            // The server lost prepared statements (DISCARD ALL, DEALLOCATE): the batch, its own implicit
            // transaction, did nothing; run it once more, preparing what it needs, as `query` does.
            return try runPipeline(batch, thenCommit: false).rows
        }
    }

    /// Runs `batch` in one round trip, then (with `thenCommit`) COMMIT in the same one; answers the batch's rows
    /// and COMMIT's result (nil when not sent or skipped after a failure, which is thrown).
    private func runPipeline(_ batch: PostgresBatch, thenCommit: Bool) throws -> (
        rows: [PostgresRows], commit: PostgresRows?
    ) {
        for item in batch.items { try ParameterArrays.validate(item.values) }
        let handle = try openHandle(sendingPendingBegin: false)
        guard PQpipelineStatus(handle) == PQ_PIPELINE_OFF, PQisBusy(handle) == 0 else {
            throw PostgresError(.unexpectedResult, message: "pipeline() called while a statement is in flight")
        }
        let plan = pipelinePlan(batch)
        guard PQenterPipelineMode(handle) == 1 else { throw connectionLevelError(sql: nil) }
        roundTrips += 1
        let wasNonBlocking = PQisnonblocking(handle) == 1
        if !wasNonBlocking { _ = PQsetnonblocking(handle, 1) }
        // The transaction's BEGIN, if the batch is its first statement: sent first, its result read first.
        let begin = pendingBegin
        pendingBegin = nil

        do {
            if let begin, PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) != 1 {
                throw connectionLevelError(sql: begin)
            }
            try send(batch, plan: plan, thenCommit: thenCommit, on: handle)
        } catch {
            // libpq could not queue or write: the connection is broken (its state is unknown mid-pipeline).
            let lost = connectionLevelError(sql: nil)
            close()
            throw (error as? PostgresError).map { failure in
                var failure = failure
                failure.kind = .connectionLost
                return failure
            } ?? lost
        }

        var rows = [PostgresRows?](repeating: nil, count: batch.count)
        var firstError: PostgresError?
        if let begin {
            while let result = try nextPipelineResult(handle, sql: begin) {
                if PQresultStatus(result) != PGRES_COMMAND_OK, firstError == nil {
                    firstError = makeError(from: result, sql: begin, values: [])
                }
                PQclear(result)
                if PQstatus(handle) != CONNECTION_OK { throw lostConnection(firstError) }
            }
        }
        for step in plan.steps {
            let item = batch.items[step.item]
            var outcome: OpaquePointer?
            // One command's results end with a NULL.
            while let result = try nextPipelineResult(handle, sql: item.statement.sql) {
                let status = PQresultStatus(result)
                switch status {
                case PGRES_PIPELINE_ABORTED:
                    PQclear(result)
                case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_SINGLE_TUPLE, PGRES_EMPTY_QUERY:
                    if let outcome { PQclear(outcome) }
                    outcome = result
                default:
                    if firstError == nil {
                        firstError = makeError(from: result, sql: item.statement.sql, values: item.values)
                    }
                    PQclear(result)
                    if PQstatus(handle) != CONNECTION_OK {
                        if let outcome { PQclear(outcome) }
                        throw lostConnection(firstError)
                    }
                }
            }
            guard let outcome else { continue }
            switch step.kind {
            case .prepare(let key, let name):
                PQclear(outcome)
                statementCache.insert(key, name: name)
            case .run:
                rows[step.item] = try consume(outcome, sql: item.statement.sql, values: item.values)
            }
        }
        var commit: PostgresRows?
        if thenCommit {
            var outcome: OpaquePointer?
            while let result = try nextPipelineResult(handle, sql: "COMMIT") {
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_ABORTED:
                    PQclear(result)
                case PGRES_COMMAND_OK:
                    if let outcome { PQclear(outcome) }
                    outcome = result
                default:
                    if firstError == nil { firstError = makeError(from: result, sql: "COMMIT", values: []) }
                    PQclear(result)
                    if PQstatus(handle) != CONNECTION_OK {
                        if let outcome { PQclear(outcome) }
                        throw lostConnection(firstError)
                    }
                }
            }
            if let outcome { commit = try consume(outcome, sql: "COMMIT", values: []) }
        }
        guard let sync = try nextPipelineResult(handle, sql: nil) else {
            throw lostConnection(firstError ?? connectionLevelError(sql: nil))
        }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
            close()
            throw PostgresError(.connectionLost, message: "the pipeline's replies ended out of order")
        }
        if !wasNonBlocking { _ = PQsetnonblocking(handle, 0) }

        if let firstError {
            if firstError.sqlState == .featureNotSupported || firstError.sqlState == .invalidSQLStatementName {
                // As `query` does: cached statements the server lost or invalidated are prepared afresh next
                // time. Which one failed is not known for certain (DEALLOCATE ALL loses every one), so the
                // batch's statements are all forgotten.
                for item in batch.items {
                    statementCache.remove(
                        StatementCache.Key(sql: item.statement.sql, parameterTypes: item.values.map(\.dataType)))
                }
            }
            if transactionStatus == .inFailedTransaction, errorThatAbortedTransaction == nil {
                errorThatAbortedTransaction = firstError
            }
            throw firstError
        }
        return (rows.map { $0 ?? PostgresRows(storage: .empty, commandTag: "", rowsAffected: 0) }, commit)
    }

    /// What to send for each statement of a batch: its prepared statement's name (preparing it first when the
    /// cache has none yet), or nothing (an unnamed statement) behind a transaction pooler or with a full cache.
    struct PipelinePlan {
        enum Kind {
            case prepare(StatementCache.Key, name: String)
            case run(preparedName: String?)
        }

        struct Step {
            let item: Int
            let kind: Kind
        }

        var steps: [Step] = []
    }

    private func pipelinePlan(_ batch: PostgresBatch) -> PipelinePlan {
        var plan = PipelinePlan()
        plan.steps.reserveCapacity(batch.count + 4)
        var preparing: [StatementCache.Key: String] = [:]
        for (index, item) in batch.items.enumerated() {
            guard !configuration.transactionPooled else {
                plan.steps.append(.init(item: index, kind: .run(preparedName: nil)))
                continue
            }
            let key = StatementCache.Key(sql: item.statement.sql, parameterTypes: item.values.map(\.dataType))
            if let name = statementCache.name(for: key) ?? preparing[key] {
                plan.steps.append(.init(item: index, kind: .run(preparedName: name)))
            } else if let name = statementCache.reserveName(for: key) {
                preparing[key] = name
                plan.steps.append(.init(item: index, kind: .prepare(key, name: name)))
                plan.steps.append(.init(item: index, kind: .run(preparedName: name)))
            } else {
                plan.steps.append(.init(item: index, kind: .run(preparedName: nil)))
            }
        }
        return plan
    }

    /// Queues every step and the sync point, then writes them out, reading replies while the socket is full.
    private func send(_ batch: PostgresBatch, plan: PipelinePlan, thenCommit: Bool, on handle: OpaquePointer) throws {
        for step in plan.steps {
            let item = batch.items[step.item]
            let sent: Int32
            switch step.kind {
            case .prepare(let key, let name):
                let oids = key.parameterTypes.map(\.rawValue)
                sent = oids.withUnsafeBufferPointer { types in
                    PQsendPrepare(handle, name, key.sql, Int32(oids.count), types.baseAddress)
                }
            case .run(let name?):
                sent = try ParameterArrays.with(item.values) { count, _, pointers, lengths, formats in
                    PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, 0)
                }
            case .run(nil):
                sent = try ParameterArrays.with(item.values) { count, types, pointers, lengths, formats in
                    PQsendQueryParams(handle, item.statement.sql, count, types, pointers, lengths, formats, 0)
                }
            }
            guard sent == 1 else { throw connectionLevelError(sql: item.statement.sql) }
        }
        if thenCommit, PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 0) != 1 {
            throw connectionLevelError(sql: "COMMIT")
        }
        guard PQpipelineSync(handle) == 1 else { throw connectionLevelError(sql: nil) }
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            guard flushed == 1 else { throw connectionLevelError(sql: nil) }
            // The server may be blocked writing replies to us: read them into libpq's buffer while we wait.
            let events = try waitForSocket(handle, events: Int16(POLLIN | POLLOUT))
            if events & Int16(POLLIN | POLLERR | POLLHUP) != 0, PQconsumeInput(handle) != 1 {
                throw connectionLevelError(sql: nil)
            }
        }
    }

    /// The next result of the pipeline (NULL ends one command's results), waiting for the socket as needed.
    private func nextPipelineResult(_ handle: OpaquePointer, sql: String?) throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            _ = try waitForSocket(handle, events: Int16(POLLIN))
            guard PQconsumeInput(handle) == 1 else { throw lostConnection(connectionLevelError(sql: sql)) }
        }
        return PQgetResult(handle)
    }

    /// Blocks until the connection's socket has one of `events` (or an error); returns what it has.
    private func waitForSocket(_ handle: OpaquePointer, events: Int16) throws -> Int16 {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lostConnection(connectionLevelError(sql: nil)) }
        while true {
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, -1)
            if ready > 0 { return descriptor.revents }
            if ready < 0, errno != EINTR { throw lostConnection(connectionLevelError(sql: nil)) }
        }
    }

    private func lostConnection(_ error: PostgresError?) -> PostgresError {
        var error = error ?? connectionLevelError(sql: nil)
        if !error.isConnectionError { error.kind = .connectionLost }
        return error
    }
}

extension ParameterArrays {
    /// Checks `values` as `with(_:_:)` does (count, NUL bytes in text, size), without laying them out.
    static func validate(_ values: [PostgresValue]) throws {
        guard values.count <= Int(UInt16.max) else {
            throw PostgresError.invalidParameter("\(values.count) parameters; PostgreSQL accepts at most 65535")
        }
        for (position, value) in values.enumerated() {
            switch value.storage {
            case .null:
                break
            case .text(let text):
                let hasNUL =
                    text.utf8.withContiguousStorageIfAvailable { bytes in
                        bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
                    } ?? text.utf8.contains(0)
                if hasNUL {
                    throw PostgresError.invalidParameter("parameter $\(position + 1) contains a NUL byte")
                }
            case .binary(let bytes):
                guard bytes.count < Int(Int32.max) else {
                    throw PostgresError.invalidParameter("parameter $\(position + 1) is too large")
                }
            }
        }
    }
}
