import PassEvents

extension EventReporter {
    /// Reports every event `enabler` emits from now on.
    public func attach(to enabler: AccessEnabler) {
        report(enabler.events(replay: true))
    }
}
