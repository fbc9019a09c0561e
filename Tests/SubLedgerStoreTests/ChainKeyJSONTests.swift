import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerStore

/// The chain keys a load joins on travel as JSON written by hand; it must read back exactly.
@Suite struct ChainKeyJSONTests {
    @Test func keysWithAnyCharactersReadBackExactly() throws {
        let ids = ["2000000000000001", "quote\"back\\slash", "tab\tnew\nline\u{01}", "é ☃ 𝄞", ""]
        let keys =
            ids.map { ChainKey(environment: .sandbox, originalTransactionID: $0) } + [
                ChainKey(environment: .production, originalTransactionID: "1")
            ]
        let json = ChainRows.keyJSON(keys)
        let decoded = try JSONDecoder().decode([[String: String]].self, from: Data(json.utf8))
        #expect(decoded.map { $0["o"] } == keys.map(\.originalTransactionID))
        #expect(decoded.map { $0["e"] } == keys.map(\.environment.rawValue))
        #expect(ChainRows.keyJSON([]) == "[]")
    }
}
