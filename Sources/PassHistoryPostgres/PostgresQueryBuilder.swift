import PostgresNIO

/// SQL text and its bound values built together: ``bind(_:)`` appends a value and returns its placeholder (`$n`).
struct PostgresQueryBuilder {
    var sql = ""
    var binds = PostgresBindings()

    /// Binds `value` and returns its placeholder.
    mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// Binds `value` (NULL when `nil`) and returns its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// The query to run.
    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}
