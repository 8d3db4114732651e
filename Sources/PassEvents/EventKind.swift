
/// The kind of an ``EntitlementEvent`` without its associated values: the `kind` column of the `event` table and
/// the values a ``HistoryFilter`` can select.
public enum EventKind: String, Codable, Sendable, CaseIterable, Hashable {
    case apiCall
    case stateChanged
    case httpExchange
    case storageChanged
    case callback
    case tracking
    case error

    /// The kind of `kind`.
    public init(_ kind: EntitlementEvent.Kind) {
        switch kind {
        case .apiCall: self = .apiCall
        case .stateChanged: self = .stateChanged
        case .httpExchange: self = .httpExchange
        case .storageChanged: self = .storageChanged
        case .callback: self = .callback
        case .tracking: self = .tracking
        case .error: self = .error
        }
    }
}
