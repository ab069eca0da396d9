import TickwireContract

extension ActivityFileFormat: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "A Ghostfolio activity file: `csv` (a header line naming Date, Code, Currency, Price, "
            + "Quantity, Action, Fee, then one activity a line) or `json` (Ghostfolio's export, its `activities` array).")
    }
}

extension ImportActivitiesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`activities.import {format, content, dryRun?, by?, portfolio?}`: a Ghostfolio file previewed line by line, its new activities added to one portfolio all at once when asked.", [
            "format": .required(.ref(ActivityFileFormat.self), "The file's format."),
            "content": .required(.string, "The file's text (at most 100,000 activities; over the wire at most the wire's 1 MiB string)."),
            "dryRun": .optional(.boolean, "Only a preview, nothing written; `true` when absent."),
            "by": .optional(.string, "Who imports, as the caller names itself (not authenticated), for each added activity's history."),
            "portfolio": PortfolioMember.property("The portfolio the activities go to; `main` when absent. A line's identity includes it: the same file imported into two portfolios adds to both."),
        ])
    }
}

extension ImportLineError: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What is wrong with a line of an imported file, or with the whole file.", [
            "line": .required(.integer, "CSV: the line where the record starts (the header is line 1); JSON: the activity's position in `activities`, from 1; 0 for the whole file."),
            "column": .optional(.string, "The column (CSV) or member (JSON) at fault, if one is."),
            "reason": .required(.string, "Why, and how to fix it."),
        ])
    }
}

extension ImportLine.Status: JSONSchemaDescribable {
    public static var schemaName: String? { "ImportLineStatus" }
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "What becomes of a line: `new` (adds an activity), `duplicate` (imported before), `error`.")
    }
}

extension ImportLine: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One line of an imported file, as the import reads it.", [
            "line": .required(.integer, "CSV: the line where the record starts; JSON: the activity's position in `activities`, from 1."),
            "status": .required(.ref(ImportLine.Status.self), "What becomes of it."),
            "activity": .optional(.ref(AddTradeRequest.self),
                                  "The activity it adds (or added before), unless it has an error; its `requestId` is the line's identity, from its fields."),
            "errors": .required(.array(.ref(ImportLineError.self)), "Why it cannot be imported (empty unless `status` is `error`)."),
        ])
    }
}

extension ImportPreview: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `activities.import`: every line with what becomes of it, the counts, and whether anything was written.", [
            "format": .required(.ref(ActivityFileFormat.self), "The file's format."),
            "dryRun": .required(.boolean, "Whether it was only a preview."),
            "written": .required(.boolean, "Whether the new activities were added: never on a dry run, never when a line or the file has an error."),
            "new": .required(.integer, "Lines that add an activity."),
            "duplicates": .required(.integer, "Lines that add nothing: imported before."),
            "errors": .required(.integer, "Lines with an error."),
            "fileErrors": .required(.array(.ref(ImportLineError.self)), "Errors of the whole file: not CSV or JSON, a missing column, too many lines, a stored sell it would overdraw."),
            "lines": .required(.array(.ref(ImportLine.self)), "Every line read, in the file's order."),
        ])
    }
}

extension ExportActivitiesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`activities.export {format, portfolio?}`: every activity of one portfolio as a Ghostfolio file.", [
            "format": .required(.ref(ActivityFileFormat.self), "The file's format."),
            "portfolio": PortfolioMember.property("The portfolio exported; `main` when absent."),
        ])
    }
}

extension ExportedActivities: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `activities.export`: the file's text.", [
            "format": .required(.ref(ActivityFileFormat.self), "The file's format."),
            "activities": .required(.integer, "How many activities it holds."),
            "content": .required(.string, "The file's text: buys, sells and fees as Ghostfolio's BUY, SELL, FEE; transfers as TRANSFER_IN and TRANSFER_OUT, which only Tickwire reads."),
        ])
    }
}
