import CLibPQ

extension PostgresConnection {
    /// Bulk-loads rows with `COPY … FROM STDIN` (text format); returns the number of rows copied.
    ///
    /// `sql` is the COPY statement, e.g. `COPY events (id, payload) FROM STDIN`. Each row holds one value
    /// per listed column. Values are escaped for COPY's text format; NULL is sent as `\N`.
    @discardableResult
    public func copyIn(sql: String, rows: some Sequence<[PostgresValue]>) throws -> Int {
        let handle = try openHandle()
        guard let start = PQexec(handle, sql) else {
            throw connectionLevelError(sql: sql)
        }
        let startStatus = PQresultStatus(start)
        guard startStatus == PGRES_COPY_IN else {
            // Not a COPY FROM STDIN: `consume` clears the result and throws the server's error (or
            // leaves a COPY TO STDOUT); anything that succeeded is still refused.
            _ = try consume(start, sql: sql, values: [])
            var error = PostgresError(.unexpectedResult, message: "copyIn needs a COPY … FROM STDIN statement")
            error.query = sql
            throw error
        }
        PQclear(start)

        var failure: PostgresError?
        var buffer = [UInt8]()
        let flushThreshold = 64 * 1024
        buffer.reserveCapacity(flushThreshold + 4 * 1024)
        rowLoop: for (rowNumber, row) in rows.enumerated() {
            for (column, value) in row.enumerated() {
                if column > 0 { buffer.append(UInt8(ascii: "\t")) }
                guard let text = value.copyText else {
                    buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
                    continue
                }
                guard Self.appendCopyEscaped(text, to: &buffer) else {
                    failure = .invalidParameter("COPY row \(rowNumber + 1), column \(column + 1) contains a NUL byte")
                    break rowLoop
                }
            }
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count >= flushThreshold {
                if let error = send(buffer, handle: handle, sql: sql) {
                    failure = error
                    break rowLoop
                }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if failure == nil, !buffer.isEmpty {
            failure = send(buffer, handle: handle, sql: sql)
        }
        // On a client-side failure the server is told to abort, which rolls the COPY back entirely.
        if PQputCopyEnd(handle, failure == nil ? nil : "COPY aborted by client") != 1, failure == nil {
            failure = connectionLevelError(sql: sql)
        }
        var serverError: PostgresError?
        var copied = 0
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK {
                copied = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
            } else if status == PGRES_COPY_IN {
                // Should not happen after PQputCopyEnd; bail out rather than loop forever.
                _ = PQputCopyEnd(handle, "COPY aborted by client")
            } else if serverError == nil {
                serverError = makeError(from: result, sql: sql, values: [])
            }
        }
        if let failure { throw failure }
        if let serverError { throw serverError }
        return copied
    }

    private func send(_ buffer: [UInt8], handle: OpaquePointer, sql: String) -> PostgresError? {
        let status = buffer.withUnsafeBytes { raw in
            PQputCopyData(handle, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        return status == 1 ? nil : connectionLevelError(sql: sql)
    }

    /// Appends `text` escaped for COPY's text format; false if it holds a NUL byte (COPY cannot carry one).
    static func appendCopyEscaped(_ text: String, to buffer: inout [UInt8]) -> Bool {
        for byte in text.utf8 {
            switch byte {
            case 0: return false
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default: buffer.append(byte)
            }
        }
        return true
    }
}
