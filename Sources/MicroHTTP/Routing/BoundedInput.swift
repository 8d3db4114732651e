import Foundation

/// Numbers read from input (query, form, header, JSON body), checked against a range before any arithmetic, so a
/// client's `limit=-1`, `Int.max` or `1e300` is a `400 invalid_parameter` instead of a trap that stops the process.
///
/// ```swift
/// let limit = try request.query("limit", as: Int.self, in: 1...5000, default: 200)
/// let ttl: Int? = try request.parameter("ttl", as: Int.self, in: 1...86_400)
/// ```
public enum BoundedInput {
    /// The `400 invalid_parameter` error for `name`, naming what was sent (shortened) and what is accepted.
    public static func error(_ name: String, _ sent: String, accepted: String) -> HTTPError {
        let shown = sent.count > 64 ? String(sent.prefix(64)) + "…" : sent
        return HTTPError(.badRequest, code: "invalid_parameter", message: "\(name) must be \(accepted).",
            detail: "Received \"\(shown)\".")
    }

    /// `text` read as an integer within `range`; nil when `text` is nil or empty.
    /// - Throws: `400 invalid_parameter` when it is not a decimal integer or lies outside `range`.
    public static func integer<T: FixedWidthInteger>(_ text: String?, named name: String, in range: ClosedRange<T>)
        throws(HTTPError) -> T?
    {
        guard let text, !text.isEmpty else { return nil }
        guard let value = T(text), range.contains(value) else {
            throw error(name, text, accepted: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `text` read as a finite number within `range`; nil when `text` is nil or empty.
    /// - Throws: `400 invalid_parameter` for text that is not a number, `NaN`, infinities and values outside `range`.
    public static func number(_ text: String?, named name: String, in range: ClosedRange<Double>) throws(HTTPError) -> Double? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Double(text) else { throw error(name, text, accepted: accepted(range)) }
        return try check(value, named: name, in: range)
    }

    /// A decoded integer (a JSON body's field) checked against `range`; nil passes.
    @discardableResult
    public static func check<T: FixedWidthInteger>(_ value: T?, named name: String, in range: ClosedRange<T>)
        throws(HTTPError) -> T?
    {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw error(name, String(value), accepted: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A decoded number checked to be finite and within `range`; nil passes.
    @discardableResult
    public static func check(_ value: Double?, named name: String, in range: ClosedRange<Double>) throws(HTTPError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, range.contains(value) else { throw error(name, String(value), accepted: accepted(range)) }
        return value
    }

    private static func accepted(_ range: ClosedRange<Double>) -> String {
        "a number from \(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A request body that checks its own numbers after decoding; ``Request/decodeJSON(_:)`` calls ``validate()``.
public protocol ValidatedBody: Decodable {
    /// Throws `400 invalid_parameter` (see ``BoundedInput``) for a field out of its range.
    func validate() throws(HTTPError)
}

extension Request {
    /// A query argument read as an integer within `range`, `defaultValue` when absent or empty.
    /// - Throws: `400 invalid_parameter` when it is not an integer in `range`.
    public func query<T: FixedWidthInteger>(_ name: String, as type: T.Type, in range: ClosedRange<T>, default defaultValue: T)
        throws(HTTPError) -> T
    {
        try BoundedInput.integer(query(name), named: name, in: range) ?? defaultValue
    }

    /// A query argument read as an integer within `range`, nil when absent or empty.
    public func query<T: FixedWidthInteger>(_ name: String, as type: T.Type, in range: ClosedRange<T>) throws(HTTPError) -> T? {
        try BoundedInput.integer(query(name), named: name, in: range)
    }

    /// A form or query parameter (see ``parameter(_:)``) read as an integer within `range`, nil when absent or empty.
    public func parameter<T: FixedWidthInteger>(_ name: String, as type: T.Type, in range: ClosedRange<T>) throws(HTTPError) -> T? {
        try BoundedInput.integer(parameter(name), named: name, in: range)
    }

    /// A header read as an integer within `range`, `defaultValue` when absent or empty.
    public func header<T: FixedWidthInteger>(_ name: String, as type: T.Type, in range: ClosedRange<T>, default defaultValue: T)
        throws(HTTPError) -> T
    {
        try BoundedInput.integer(header(name)?.trimmingCharacters(in: .whitespaces), named: name, in: range) ?? defaultValue
    }
}
