import Testing

@testable import PostgresLibPQ

/// Which errors of a Citus coordinator mean a worker was out of reach for the moment (`isRemoteNodeFailure`: the
/// service answers 503 with Retry-After) and which keep their own meaning.
@Suite struct RemoteNodeFailureTests {
    static func error(_ sqlState: String, _ message: String, context: String? = nil) -> PostgresError {
        var error = PostgresError(.queryFailed, message: message, sqlState: SQLState(rawValue: sqlState))
        error.context = context
        return error
    }

    @Test func aLinkLostUnderAStatementOrACopyIsARemoteNodeFailure() {
        // As Citus 12.1 reports them (multi_copy.c, remote_commands.c) when a worker restarts under the statement.
        let lost = [
            Self.error("58030", "failed to COPY to shard 102008 on 127.0.0.1:25601"),
            Self.error(
                "XX000", "connection to the remote node postgres@127.0.0.1:25601 failed",
                context: "while executing command on 127.0.0.1:25601"),
        ]
        for error in lost {
            #expect(error.isRemoteNodeFailure, "\(error)")
        }
    }

    @Test func otherErrorsOfTheSameCodesAreNot() {
        let others = [
            Self.error("58030", "could not read block 7 in file \"base/16384/16385\": read only 0 of 8192 bytes"),
            Self.error("XX000", "unexpected state"),
            Self.error("23505", "duplicate key value violates unique constraint"),
            Self.error("58030", "could not write to file: No space left on device; failed to COPY to shard 1"),
        ]
        for error in others {
            #expect(!error.isRemoteNodeFailure, "\(error)")
        }
    }
}
