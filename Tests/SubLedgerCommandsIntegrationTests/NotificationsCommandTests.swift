import Testing

/// `subledger notifications recover` and `test` refuse bad arguments before touching any database (the test's
/// path end to end: `NotificationTestEndToEndTests`).
@Suite struct NotificationsCommandTests {
    @Test(arguments: [
        (["--since", "last tuesday"], "must be an RFC 3339 time"),
        (["--since", "2999-01-01T00:00:00Z"], "is in the future"),
        (["--since", "2001-01-01T00:00:00Z"], "older than the 180 days Apple keeps notification history"),
        (["--environment", "Xcode"], "must be Production or Sandbox"),
    ])
    func badArgumentsGetAClearErrorAndExitCode64(_ arguments: [String], _ message: String) async throws {
        // A database that does not exist: validation must refuse before any connection is tried.
        let run = await SubLedgerCLI.run(
            ["notifications", "recover"] + arguments, environment: ["DATABASE_URL": "postgresql://127.0.0.1:9/none"])
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains(message), "\(run.output)")
    }

    @Test(arguments: [
        (["--app", "com.example.app", "--wait", "0"], "--wait must be between 1 and 600 seconds"),
        (["--app", "com.example.app", "--wait", "601"], "--wait must be between 1 and 600 seconds"),
        (["--app", "com.example.app", "--environment", "Xcode"], "--environment must be Production or Sandbox"),
        ([], "Missing expected argument '--app <app>'"),
    ])
    func testRefusesBadArgumentsBeforeTouchingAnything(_ arguments: [String], _ message: String) async throws {
        let run = await SubLedgerCLI.run(
            ["notifications", "test"] + arguments, environment: ["DATABASE_URL": "postgresql://127.0.0.1:9/none"])
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains(message), "\(run.output)")
    }
}
