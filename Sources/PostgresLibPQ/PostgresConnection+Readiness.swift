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
            let handle = try openHandle()
            roundTrips += 1
            let sent = try ParameterArrays.with(values) { count, _, pointers, lengths, formats in
                // The socket is writable almost always; libpq's blocking flush covers the rare full buffer.
                PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, 0)
            }
            guard sent == 1 else { throw connectionLevelError(sql: sql) }
            let socket = PQsocket(handle)
            var last: OpaquePointer?
            while true {
                while PQisBusy(handle) == 1 {
                    await SocketReadiness.shared.readable(socket)
                    guard PQconsumeInput(handle) == 1 else {
                        if let last { PQclear(last) }
                        var error = connectionLevelError(sql: sql)
                        error.kind = .connectionLost
                        throw error
                    }
                }
                guard let result = PQgetResult(handle) else { break }
                // As PQexecPrepared does: the last result is the statement's outcome.
                if let last { PQclear(last) }
                last = result
            }
            return try consume(last, sql: sql, values: values)
        }
    }
#endif
