import AppStore
import Foundation
import SubLedgerCore
import Testing

/// App-receipt dates: RFC 3339 with `+hh:mm` or `+hhmm` offsets, range-checked as they are read.
@Suite struct AppReceiptDateTests {
    static func receipt(expiresDate: String) throws -> [UInt8] {
        try AppReceiptFixture.pkcs7(
            payload: AppReceiptFixture.attributeSet([
                (2, AppReceiptFixture.utf8("com.example")),
                (
                    17,
                    AppReceiptFixture.inAppPurchase(
                        productID: "com.example.monthly", transactionID: "1000000000000001",
                        originalTransactionID: "1000000000000001", purchaseDate: "2023-10-14T22:13:20Z",
                        expiresDate: expiresDate)
                ),
            ]))
    }

    @Test(
        arguments: [
            ("2023-01-01T00:00:00+0000", 1_672_531_200_000),
            ("2023-01-01T01:00:00+0100", 1_672_531_200_000),
            ("2023-01-01T01:00:00+01:00", 1_672_531_200_000),
            ("2022-12-31T19:30:00.250-0430", 1_672_531_200_250),
            ("2023-01-01T00:00:00Z", 1_672_531_200_000),
        ] as [(String, Int64)])
    func offsetsWithAndWithoutColonAreRead(text: String, expected: Int64) throws {
        let read = try AppReceiptReader().read(der: Self.receipt(expiresDate: text))
        #expect(read.inAppPurchases.first?.expiresDate == expected)
    }

    @Test(arguments: ["2023-01-01T00:00:00+01", "2023-01-01T00:00:00+2400", "2023-01-01T00:00:00+0160", "nonsense"])
    func malformedOffsetsStillReadAsAbsent(text: String) throws {
        let read = try AppReceiptReader().read(der: Self.receipt(expiresDate: text))
        #expect(read.inAppPurchases.first?.expiresDate == nil)
        #expect(read.inAppPurchases.first?.transactionID == "1000000000000001")
    }

    @Test(arguments: [
        "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.500Z", "9999-12-31T23:59:59-0100",
    ])
    func datesOutsideTheAcceptedRangeAreRefusedNamingTheField(text: String) throws {
        #expect(throws: AppReceiptError(.dateOutOfRange, field: "expires_date")) {
            try AppReceiptReader().read(der: Self.receipt(expiresDate: text))
        }
    }

    @Test func theLastAcceptedInstantIsRead() throws {
        let read = try AppReceiptReader().read(der: Self.receipt(expiresDate: "9999-12-31T23:59:59Z"))
        #expect(read.inAppPurchases.first?.expiresDate == Instant.latestAccepted.millisecondsSince1970)
    }
}
