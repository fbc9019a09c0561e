/// A `ThreadBarrier` whose parties did not all arrive in time.
struct BarrierTimeout: Error {}
