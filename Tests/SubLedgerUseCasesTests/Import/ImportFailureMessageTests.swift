import SubLedgerStore
import Testing

@testable import SubLedgerUseCases

/// Every import row failure is a code and a message for people: the failures the importer does not name itself
/// (the ledger or the database refusing) are `import_failed` with what failed, never Swift's rendering of the
/// internal error.
@Suite struct ImportFailureMessageTests {
    @Test func theLedgersRefusalCarriesItsMessage() {
        let reason = MigrationImporter.reason(
            forUnexpected: StoreError(code: .unknownProduct, message: "product pro.weekly is not in the catalog"))
        #expect(reason.code == "import_failed")
        #expect(reason.message == "the ledger refused the chain: product pro.weekly is not in the catalog")
    }

    @Test func anUnknownFailureNamesNoInternalValue() {
        struct Internal: Error { var detail = 42 }
        let reason = MigrationImporter.reason(forUnexpected: Internal())
        #expect(reason.code == "import_failed")
        #expect(reason.message == "an unexpected failure while importing the chain")
        #expect(!reason.message.contains("Internal"))
    }
}
