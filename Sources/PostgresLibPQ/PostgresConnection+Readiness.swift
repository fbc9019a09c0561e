#if os(Linux)
    import CLibPQ

    extension PostgresConnection {
        /// Runs a statement already prepared on this connection from the calling task, without a thread:
        /// sends it (`PQsendQueryPrepared`), suspends until the socket is readable (`SocketReadiness`) as
        /// often as the reply needs, and reads the result (`PQconsumeInput`, `PQgetResult`).
        ///
        /// The caller must hold the connection alone (a pool lease) for the whole call.
        func executeAwaitingReadiness(prepared name: String, values: [PostgresValue], sql: String) async throws
            -> PostgresRows
        {
            let handle = try sendPrepared(name, values: values, sql: sql)
            let socket = PQsocket(handle)
            var reply = Reply()
            while true {
                switch reply.read(handle) {
                case .needsMore:
                    await SocketReadiness.shared.readable(socket)
                    try reply.consumeInput(handle, on: self, sql: sql)
                case .complete(let last): return try consume(last, sql: sql, values: values)
                }
            }
        }

        /// The same without a task: `completion` gets the rows or the error, on the readiness thread (or on the
        /// caller's, when the reply is there at once or the statement could not be sent).
        ///
        /// The caller must hold the connection alone (a pool lease) until `completion` runs.
        func executeWhenReadable(
            prepared name: String, values: [PostgresValue], sql: String,
            completion: @escaping @Sendable (Result<PostgresRows, any Error>) -> Void
        ) {
            let handle: OpaquePointer
            do {
                handle = try sendPrepared(name, values: values, sql: sql)
            } catch {
                completion(.failure(error))
                return
            }
            let reading = ReplyReading(
                connection: self, handle: handle, sql: sql, values: values, completion: completion)
            reading.advance()
        }

        private func sendPrepared(_ name: String, values: [PostgresValue], sql: String) throws -> OpaquePointer {
            let handle = try openHandle()
            roundTrips += 1
            let sent = try ParameterArrays.with(values) { count, _, pointers, lengths, formats in
                // The socket is writable almost always; libpq's blocking flush covers the rare full buffer.
                PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, 0)
            }
            guard sent == 1 else { throw connectionLevelError(sql: sql) }
            return handle
        }
    }

    /// The results of a sent statement as they arrive: the last one is the statement's outcome, as
    /// `PQexecPrepared` has it.
    private struct Reply {
        enum Step {
            /// Nothing more can be read until the socket is readable again.
            case needsMore
            /// Every result is in; the last (nil if none), for `PostgresConnection.consume`.
            case complete(OpaquePointer?)
        }

        private var last: OpaquePointer?

        mutating func read(_ handle: OpaquePointer) -> Step {
            while true {
                if PQisBusy(handle) == 1 {
                    return .needsMore
                }
                guard let result = PQgetResult(handle) else {
                    defer { last = nil }
                    return .complete(last)
                }
                if let last { PQclear(last) }
                last = result
            }
        }

        /// Reads what arrived on the socket (after a readiness wake-up).
        mutating func consumeInput(_ handle: OpaquePointer, on connection: PostgresConnection, sql: String) throws {
            guard PQconsumeInput(handle) == 1 else {
                if let last { PQclear(last) }
                last = nil
                var error = connection.connectionLevelError(sql: sql)
                error.kind = .connectionLost
                throw error
            }
        }
    }

    /// One statement's reply read on readiness wake-ups, for `executeWhenReadable`. Touched by one thread at a
    /// time: the sender's, then the readiness thread's after each wake-up.
    private final class ReplyReading: @unchecked Sendable {
        let connection: PostgresConnection
        let handle: OpaquePointer
        let sql: String
        let values: [PostgresValue]
        let completion: @Sendable (Result<PostgresRows, any Error>) -> Void
        private var reply = Reply()

        init(
            connection: PostgresConnection, handle: OpaquePointer, sql: String, values: [PostgresValue],
            completion: @escaping @Sendable (Result<PostgresRows, any Error>) -> Void
        ) {
            self.connection = connection
            self.handle = handle
            self.sql = sql
            self.values = values
            self.completion = completion
        }

        func advance() {
            switch reply.read(handle) {
            case .needsMore:
                SocketReadiness.shared.whenReadable(PQsocket(handle)) { [self] in
                    do {
                        try reply.consumeInput(handle, on: connection, sql: sql)
                    } catch {
                        completion(.failure(error))
                        return
                    }
                    advance()
                }
            case .complete(let last):
                completion(Result { try connection.consume(last, sql: sql, values: values) })
            }
        }
    }
#endif
