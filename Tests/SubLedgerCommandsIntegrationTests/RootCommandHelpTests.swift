import Testing

@testable import SubLedgerCommands

/// `subledger --help` says what SubLedger keeps: App Store and Google Play purchases, not the App Store's alone.
@Suite struct RootCommandHelpTests {
    @Test func theAbstractNamesBothStores() {
        let abstract = SubLedgerCommand.configuration.abstract
        #expect(abstract.contains("App Store"))
        #expect(abstract.contains("Google Play"))
    }
}
