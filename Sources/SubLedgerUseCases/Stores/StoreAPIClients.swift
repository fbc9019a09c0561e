/// The API clients of one store, one per credential an app's catalog entry holds (an API key, a secret key, a
/// service account key): every app with the same credential shares a client, and a rotated credential makes a new
/// one. Kept by a store's gateway (an actor); at most `capacity` are kept, and past it all are let go at once, so a
/// stream of rotations cannot grow it without end.
public struct StoreAPIClients<Client: Sendable>: Sendable {
    public let capacity: Int
    private var clients: [String: Client] = [:]

    public init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// The client made with `credential`, made by `make` the first time it is asked for.
    public mutating func client<Failure: Error>(
        for credential: String, make: () throws(Failure) -> Client
    ) throws(Failure) -> Client {
        if let client = clients[credential] { return client }
        let client = try make()
        if clients.count >= capacity { clients.removeAll() }
        clients[credential] = client
        return client
    }

    /// How many clients are kept.
    public var count: Int { clients.count }
}
