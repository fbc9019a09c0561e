import AppStore
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import AppStoreStore
@testable import SubLedgerUseCases

/// A receipt Apple refuses is reported with a code and a message for people (an import row's failure, a
/// client's 422), never Swift's rendering of an internal value.
@Suite struct ReceiptRefusalMessageTests {
    static let app = StoredApp(
        appID: 1, definition: App(bundleID: "com.example.refused", products: []), sharedSecret: nil)

    @Test(arguments: [
        (21002, "the receipt data is malformed or missing"),
        (21003, "the receipt could not be authenticated"),
        (21010, "the user account cannot be found or has been deleted"),
    ])
    func aRefusedReceiptSaysApplesStatusAndItsMeaning(status: Int, meaning: String) {
        let failure = VerifyReceiptFailure(code: .appleStatus, appleStatus: status, environment: .production)
        do {
            _ = try Ingestion.normalizedReceipt(.invalidReceipt(failure), app: Self.app)
            Issue.record("a refused receipt was accepted")
        } catch {
            #expect(error.refusal.code == .invalidReceipt)
            #expect(error.refusal.message == "Apple rejected the receipt: status \(status) in Production: \(meaning)")
            #expect(!error.refusal.message.contains("VerifyReceiptFailure"))
        }
    }
}
