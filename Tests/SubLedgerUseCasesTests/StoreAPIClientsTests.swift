import SubLedgerUseCases
import Testing

/// One client per credential, made once; a failed making keeps nothing; the cache is bounded.
@Suite struct StoreAPIClientsTests {
    final class Client: Sendable {
        let credential: String
        init(_ credential: String) { self.credential = credential }
    }

    struct Unusable: Error {}

    @Test func aCredentialsClientIsMadeOnceAndARotatedOneMakesAnother() {
        var clients = StoreAPIClients<Client>()
        var made = 0
        let first = clients.client(for: "key-1") {
            made += 1
            return Client("key-1")
        }
        let again = clients.client(for: "key-1") {
            made += 1
            return Client("key-1")
        }
        #expect(first === again && made == 1)
        let rotated = clients.client(for: "key-2") {
            made += 1
            return Client("key-2")
        }
        #expect(rotated !== first && rotated.credential == "key-2" && made == 2 && clients.count == 2)
    }

    @Test func aClientThatCannotBeMadeIsNotKept() {
        var clients = StoreAPIClients<Client>()
        #expect(throws: Unusable.self) {
            try clients.client(for: "bad") { () throws(Unusable) -> Client in throw Unusable() }
        }
        #expect(clients.count == 0)
    }

    @Test func pastItsCapacityEveryClientIsLetGo() {
        var clients = StoreAPIClients<Client>(capacity: 3)
        for index in 0..<3 { _ = clients.client(for: "key-\(index)") { Client("key-\(index)") } }
        #expect(clients.count == 3)
        _ = clients.client(for: "key-3") { Client("key-3") }
        #expect(clients.count == 1)
    }
}
