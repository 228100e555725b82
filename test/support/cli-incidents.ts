/**
 * The incidents the CLI tests (in process and end to end) run `match` and `timeline` over: three dated
 * incidents out of creation order (INC-1 is the earliest matching `Severity: High`, INC-2 the earliest of
 * all), so that a result in input order and one in the order of docs/semantics.md 1.9 differ.
 */
export const CLI_INCIDENTS = [
  {
    IncidentId: 3,
    Number: "INC-3",
    Severity: "High",
    Title: "Phishing mail",
    CreatedUtcTime: "2024-03-01T00:00:00Z",
  },
  {
    IncidentId: 1,
    Number: "INC-1",
    Severity: "High",
    Title: "Phishing link",
    CreatedUtcTime: "2024-02-01T00:00:00Z",
  },
  {
    IncidentId: 2,
    Number: "INC-2",
    Severity: "Low",
    Title: "Port scan",
    CreatedUtcTime: "2024-01-01T00:00:00Z",
  },
] as const;
