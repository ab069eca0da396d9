import Foundation

/// The file formats of `activities.import` and `activities.export`: Ghostfolio's activity CSV and JSON.
public enum ActivityFileFormat: String, Codable, Sendable, Equatable, CaseIterable {
    /// Ghostfolio's CSV: a header line (`Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note`), one activity a line.
    case csv
    /// Ghostfolio's JSON export: `{"meta": ..., "activities": [{"date", "symbol", "type", "quantity", "unitPrice", "fee", "currency", ...}]}`.
    case json
}

/// `activities.import {format, content, dryRun?, by?, portfolio?}`: a preview of every line of a Ghostfolio file, and its
/// activities added (all of them or none) to one portfolio when `dryRun` is false and no line has an error.
public struct ImportActivitiesRequest: Codable, Sendable, Equatable {
    /// The file's format.
    public var format: ActivityFileFormat
    /// The file's text.
    public var content: String
    /// Only a preview, nothing written; `true` when absent, so an import writes only when asked to.
    public var dryRun: Bool?
    /// Who imports, as the caller names itself (not authenticated); kept in each added activity's history.
    public var by: String?
    /// The portfolio the activities go to; `main` when absent. A line's identity includes it: the same file imported into
    /// two portfolios adds to both.
    public var portfolio: String?

    /// A request to import `content` into `portfolio` (`main` when nil); a preview unless `dryRun` is false.
    public init(format: ActivityFileFormat, content: String, dryRun: Bool? = true, by: String? = nil, portfolio: String? = nil) {
        self.format = format
        self.content = content
        self.dryRun = dryRun
        self.by = by
        self.portfolio = portfolio
    }
}

/// What is wrong with a line of an imported file (or with the whole file, when `line` is 0).
public struct ImportLineError: Codable, Sendable, Equatable {
    /// CSV: the line of the file where the record starts (the header is line 1); JSON: the activity's position in
    /// `activities`, from 1; 0 for the whole file.
    public var line: Int
    /// The column (CSV) or member (JSON) at fault, if one is.
    public var column: String?
    /// Why, and how to fix it.
    public var reason: String

    /// An error of `line`.
    public init(line: Int, column: String?, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }
}

/// One line of an imported file, as the import reads it.
public struct ImportLine: Codable, Sendable, Equatable {
    /// What becomes of it.
    public enum Status: String, Codable, Sendable, Equatable, CaseIterable {
        /// It adds an activity.
        case new
        /// Its activity was imported (or added under its identity) before, or is an earlier line's: it adds nothing.
        case duplicate
        /// It cannot be imported: see `errors`.
        case error
    }

    /// CSV: the line where the record starts; JSON: the activity's position in `activities`, from 1.
    public var line: Int
    /// What becomes of it.
    public var status: Status
    /// The activity it adds (or added before), unless it has an error. Its `requestId` is the line's identity (from its
    /// fields, so the same line in another file, CSV or JSON, is the same activity): a file imported twice adds nothing.
    public var activity: AddTradeRequest?
    /// Why it cannot be imported (empty unless `status` is `error`).
    public var errors: [ImportLineError]

    /// A line of the preview.
    public init(line: Int, status: Status, activity: AddTradeRequest?, errors: [ImportLineError]) {
        self.line = line
        self.status = status
        self.activity = activity
        self.errors = errors
    }
}

/// The answer to `activities.import`: every line with what becomes of it, the counts, and whether anything was written.
public struct ImportPreview: Codable, Sendable, Equatable {
    /// The file's format.
    public var format: ActivityFileFormat
    /// Whether it was only a preview.
    public var dryRun: Bool
    /// Whether the new activities were added (never when any line or the file has an error, never on a dry run).
    public var written: Bool
    /// Lines that add an activity.
    public var new: Int
    /// Lines that add nothing: imported before.
    public var duplicates: Int
    /// Lines with an error.
    public var errors: Int
    /// Errors of the whole file (not CSV or JSON, a missing column, too many lines), each with line 0 or the header's line.
    public var fileErrors: [ImportLineError]
    /// Every line read, in the file's order.
    public var lines: [ImportLine]

    /// A preview.
    public init(format: ActivityFileFormat, dryRun: Bool, written: Bool, new: Int, duplicates: Int, errors: Int,
                fileErrors: [ImportLineError], lines: [ImportLine]) {
        self.format = format
        self.dryRun = dryRun
        self.written = written
        self.new = new
        self.duplicates = duplicates
        self.errors = errors
        self.fileErrors = fileErrors
        self.lines = lines
    }
}

/// `activities.export {format, portfolio?}`: every activity of one portfolio as a Ghostfolio file.
public struct ExportActivitiesRequest: Codable, Sendable, Equatable {
    /// The file's format.
    public var format: ActivityFileFormat
    /// The portfolio exported; `main` when absent.
    public var portfolio: String?

    /// A request for every activity of `portfolio` (`main` when nil) in `format`.
    public init(format: ActivityFileFormat, portfolio: String? = nil) {
        self.format = format
        self.portfolio = portfolio
    }
}

/// The answer to `activities.export`: the file's text.
public struct ExportedActivities: Codable, Sendable, Equatable {
    /// The file's format.
    public var format: ActivityFileFormat
    /// How many activities it holds.
    public var activities: Int
    /// The file's text.
    public var content: String

    /// An exported file.
    public init(format: ActivityFileFormat, activities: Int, content: String) {
        self.format = format
        self.activities = activities
        self.content = content
    }
}
