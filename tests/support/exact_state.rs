//! An ActionState holding everything a store must give back exactly: numbers
//! no double holds, lone surrogates, deep nesting, unknown fields, null ids
//! and Flink Agents' args digests. Shared by the store tests.
#![allow(dead_code)] // each includer uses a part

use durable_journal::ActionState;

/// Jackson's limit is 1000 levels for the whole record; the task event sits at level 1.
fn deepest_task_event() -> String {
    format!("{}\"bottom\"{}", "[".repeat(999), "]".repeat(999))
}

pub fn exact_json() -> String {
    let numbers = "[0.12073605139050847,18446744073709551616,123456789012345678901234567890,1e400,-0.0,4.9e-324]";
    format!(
        concat!(
            r#"{{"taskEvent":{deep},"#,
            r#""sensoryMemoryUpdates":[{{"path":"n","value":{numbers}}}],"#,
            r#""shortTermMemoryUpdates":[{{"path":"cut","value":"emoji \uD83D"}}],"#,
            r#""outputEvents":[{{"@class":"org.example.OutputEvent","z":1,"a":{numbers}}}],"#,
            r#""callResults":["#,
            r#"{{"functionId":"tool-call:a","argsDigest":"","status":"SUCCEEDED","resultPayload":"MQ==","exceptionPayload":null}},"#,
            r#"{{"functionId":null,"argsDigest":"","status":"SUCCEEDED","resultPayload":"Mg==","exceptionPayload":null}},"#,
            r#"{{"functionId":"tool-call:\uD83D","argsDigest":null,"status":"FAILED","resultPayload":null,"exceptionPayload":"ZQ=="}},"#,
            r#"{{"functionId":"py.search::0123456789abcdef","argsDigest":"9f86d081884c7d65","status":"PENDING","resultPayload":null,"exceptionPayload":null}}"#,
            r#"],"completed":false,"subagentResultEvents":{numbers},"\uDE00":-0.0}}"#
        ),
        deep = deepest_task_event(),
        numbers = numbers,
    )
}

pub fn exact_state() -> ActionState {
    ActionState::from_json(exact_json().as_bytes()).unwrap()
}
