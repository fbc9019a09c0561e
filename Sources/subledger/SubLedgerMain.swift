import ArgumentParser
import Logging
import SubLedgerCommands
import SubLedgerHTTP

/// The `subledger` executable: everything it does is in SubLedgerCommands.
@main
enum SubLedgerMain {
    static func main() async {
        if CommandLine.arguments.dropFirst().first == "serve" {
            // Swift concurrency's jobs run on the NIO event loops, so a request does not hop to the cooperative
            // pool and back (docs/explanation/architecture.md, "The hot paths"). A choice for the whole process, so
            // made here, before any command runs.
            ConcurrencyOnEventLoops.install(logger: Logger(label: "subledger"))
        }
        // As ArgumentParser's `main`, but a failure is written in the log format asked for (`--log-format json`).
        let status = await SubLedgerCommand.execute(Array(CommandLine.arguments.dropFirst()))
        SubLedgerCommand.exit(withError: status == 0 ? nil : ExitCode(status))
    }
}
