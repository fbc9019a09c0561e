import PostgresLibPQ

/// What statements appended to a `PostgresBatch` will tell, once the batch has run: how to read their rows.
///
/// The rows functions (`ChainRows`, `EntryRows`, …) append their statements to a batch and return one of
/// these, so that `LedgerStore.apply` can send the statements of several of them in one round trip; each
/// one's single-call form runs a batch of its own statements (`PostgresConnection.run(_:)`).
struct Batched<Value> {
    private let read: ([PostgresRows]) throws -> Value

    init(_ read: @escaping ([PostgresRows]) throws -> Value) {
        self.read = read
    }

    /// Nothing to ask the database: `value` whatever the batch returns.
    static func constant(_ value: Value) -> Batched {
        Batched { _ in value }
    }

    /// The value, from the rows of the batch the statements were appended to (all of them, in batch order).
    func value(in rows: [PostgresRows]) throws -> Value {
        try read(rows)
    }
}

extension Batched where Value == Void {
    /// Statements whose rows nothing reads.
    static var none: Batched { .constant(()) }
}

extension PostgresConnection {
    /// Runs the statements `enqueue` appends, in one round trip, and reads what they tell.
    func run<Value>(_ enqueue: (inout PostgresBatch) throws -> Batched<Value>) throws -> Value {
        var batch = PostgresBatch()
        let pending = try enqueue(&batch)
        return try pending.value(in: pipeline(batch))
    }
}
