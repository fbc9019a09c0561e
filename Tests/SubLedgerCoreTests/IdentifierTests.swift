import SubLedgerCore
import Testing

@Suite struct IdentifierTests {
    @Test(arguments: ["a", "user_42", "jane.doe+test@example.com", "A-B", String(repeating: "x", count: 128)])
    func accountIDAcceptsBoundedSafeStrings(_ raw: String) throws {
        #expect(try AccountID(raw).rawValue == raw)
    }

    @Test(arguments: [
        ("", IdentifierError.Code.empty), (String(repeating: "x", count: 129), .tooLong),
        ("a:b", .invalidCharacter), ("a->b", .invalidCharacter), ("a b", .invalidCharacter),
        ("é", .invalidCharacter),
    ])
    func accountIDRefusesEmptyLongOrAmbiguousStrings(_ raw: String, code: IdentifierError.Code) {
        #expect(throws: IdentifierError(code: code, identifierKind: "account id")) { try AccountID(raw) }
    }

    @Test func appleIdentifiersAreBoundedAndPlain() throws {
        #expect(try IdentifierRule.transactionID.validate("2000000123456789") == "2000000123456789")
        #expect(IdentifierRule.productID.accepts("pro.monthly_2-x"))
        #expect(IdentifierRule.bundleID.accepts("com.example.one"))
        #expect(IdentifierRule.transactionID.accepts(String(repeating: "9", count: 64)))
        #expect(throws: IdentifierError(code: .tooLong, identifierKind: "transaction id")) {
            try IdentifierRule.transactionID.validate(String(repeating: "9", count: 65))
        }
        #expect(throws: IdentifierError(code: .tooLong, identifierKind: "bundle id")) {
            try IdentifierRule.bundleID.validate(String(repeating: "a", count: 256))
        }
        for bad in ["12\u{0}3", "12 3", "12\u{FFFD}", "a@b", "com.example.one\n", ""] {
            #expect(!IdentifierRule.transactionID.accepts(bad), "\(bad.debugDescription)")
            #expect(!IdentifierRule.bundleID.accepts(bad), "\(bad.debugDescription)")
        }
        #expect(IdentifierRule.accountID.accepts("jane+test@example.com"))
        #expect(!IdentifierRule.accountID.accepts("a\u{0}b"))
    }

    @Test func orderIDIsAUUIDStoredLowerCased() throws {
        #expect(try OrderID("6F1C2D3E-4A5B-4C6D-8E9F-00000000000A").rawValue == "6f1c2d3e-4a5b-4c6d-8e9f-00000000000a")
    }

    @Test(arguments: ["", "not-a-uuid", "6f1c2d3e4a5b4c6d8e9f00000000000a", "6f1c2d3e-4a5b-4c6d-8e9f-00000000000g"])
    func orderIDRefusesNonUUIDs(_ raw: String) {
        #expect(throws: IdentifierError.self) { try OrderID(raw) }
    }

    @Test func accountTokenTreatsEmptyAsAbsentAndNormalizesUUIDs() {
        #expect(AccountToken(nil) == nil)
        #expect(AccountToken("") == nil)
        #expect(AccountToken("  \t") == nil)
        #expect(
            AccountToken(" ABCDEF00-0000-4000-8000-000000000001 ")?.rawValue == "abcdef00-0000-4000-8000-000000000001")
        #expect(AccountToken("User-Name")?.rawValue == "User-Name")
        #expect(!String(describing: AccountToken("secret")).contains("secret"))
    }
}
