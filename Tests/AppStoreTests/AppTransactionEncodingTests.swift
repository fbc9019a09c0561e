import AppStore
import Foundation
import SubLedgerCore
import Testing

/// The app transaction as a value to sign (appstore-sim encodes it) and Get App Transaction Info's body.
@Suite struct AppTransactionEncodingTests {
    static let appTransaction = AppTransaction(
        rawReceiptType: "Sandbox", appAppleID: 1_234_567_890, bundleID: "com.example.app", applicationVersion: "2.1",
        versionExternalIdentifier: 0, receiptCreationDate: 1_735_689_600_000,
        originalPurchaseDate: 1_735_603_200_000, originalApplicationVersion: "1.0",
        deviceVerification: "c2lnbmVk", deviceVerificationNonce: "3f2d5a9e-1c4b-4e8f-9a7d-0b6c2e1f4a58",
        appTransactionID: "704289572311348480", rawOriginalPlatform: "iOS", signedDate: 1_735_689_600_000)

    @Test func anEncodedAppTransactionUsesApplesNamesAndDecodesToItself() throws {
        let data = try JSONEncoder().encode(Self.appTransaction)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
                "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
                "deviceVerificationNonce", "appTransactionId", "originalPlatform", "signedDate",
            ])
        // Absent fields are left out, not written as null.
        #expect(object["preorderDate"] == nil)
        #expect(object["originalPurchaseDate"] as? Int64 == 1_735_603_200_000)
        #expect(try JSONDecoder().decode(AppTransaction.self, from: data) == Self.appTransaction)
    }

    /// Encoding changes nothing of the decoder's rule: Xcode's year-1 `originalPurchaseDate` still reads as absent.
    @Test func anXcodeAppTransactionWithoutAnOriginalPurchaseDateStaysWithoutOne() throws {
        var xcode = Self.appTransaction
        xcode.rawReceiptType = "Xcode"
        xcode.originalPurchaseDate = AppTransaction.xcodeAbsentOriginalPurchaseDate
        let decoded = try JSONDecoder().decode(AppTransaction.self, from: try JSONEncoder().encode(xcode))
        #expect(decoded.originalPurchaseDate == nil)
        #expect(decoded.environment == .xcode)
        xcode.originalPurchaseDate = nil
        #expect(decoded == xcode)
    }

    @Test func appTransactionInfoResponseAndItsErrorDecode() throws {
        let body = try JSONDecoder().decode(
            AppTransactionInfoResponse.self, from: Data(#"{"signedAppTransactionInfo":"eyJ.e30.c2ln"}"#.utf8))
        #expect(body.signedAppTransactionInfo == "eyJ.e30.c2ln")
        #expect(try JSONDecoder().decode(AppTransactionInfoResponse.self, from: Data("{}".utf8)) == .init())
        let error = try JSONDecoder().decode(
            ServerAPIErrorBody.self,
            from: Data(#"{"errorCode":4040019,"errorMessage":"No AppTransaction exists for the customer."}"#.utf8))
        #expect(error.errorCode == 4_040_019)
    }
}
