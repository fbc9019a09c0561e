import AppStore
import Testing

@testable import AppStoreStore

/// An App Store import row that fails on Apple's side says so in SubLedger's codes: Apple's payload that cannot be
/// read names the field, never Swift's rendering of the error.
@Suite struct AppStoreImportFailureMessageTests {
    @Test func anUnreadablePayloadSaysWhichField() throws {
        let reason = try #require(
            AppStoreRowImport.reason(describing: PayloadMappingError(.missingField, field: "expiresDate")))
        #expect(reason.code == "import_failed")
        #expect(
            reason.message
                == "Apple's answer for the chain could not be read: a required field is missing (expiresDate)")
    }

    @Test func anotherFailureIsLeftToTheImporter() {
        struct Internal: Error {}
        #expect(AppStoreRowImport.reason(describing: Internal()) == nil)
    }
}
