// SwiftData's module name on Linux: code that says `import SwiftData` builds against Strata
// unchanged. The package declares this module only where no system SwiftData exists; on
// Apple platforms the system framework owns the name.

@_exported import Strata
import Foundation

/// Runs `body` and returns its result: Linux has no Objective-C autorelease pools, so there
/// is nothing to drain. SwiftData code that wraps batch work in a pool builds unchanged.
///
/// - Throws: What `body` throws.
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}

extension String.StandardComparator {
    /// The comparator SwiftData code names for Finder-like string sorts.
    ///
    /// swift-corelibs-foundation has no localized string comparator, and cannot make one, so
    /// on Linux this sorts like ``lexical`` (in memory and in stores). For a locale-aware order,
    /// sort the fetched models with `localizedStandardCompare(_:)`.
    public static let localizedStandard = String.StandardComparator.lexical

    /// The comparator SwiftData code names for localized string sorts; on Linux it sorts like
    /// ``lexical``, for the reason ``localizedStandard`` gives.
    public static let localized = String.StandardComparator.lexical
}
