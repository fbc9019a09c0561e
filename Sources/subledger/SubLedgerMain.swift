import ArgumentParser
import SubLedgerCommands

/// The `subledger` executable: everything it does is in SubLedgerCommands.
@main
enum SubLedgerMain {
    static func main() async {
        await SubLedgerCommand.main()
    }
}
