package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.Request;
import io.durablejournal.demo.RequestSource;

/**
 * The demo's {@link Request}, numbered the way the Flink Agents agent's runs number it: users
 * {@code user_0 .. user_2} in turn (the {@code _} is on purpose: a key may contain it).
 */
public class SupportRequest extends Request {
    public SupportRequest() {}

    public SupportRequest(String id, String user, String text) {
        super(id, user, text);
    }

    /** Request {@code i}. */
    public static SupportRequest number(int i) {
        return new SupportRequest(id(i), "user_" + (i % 3), "question " + i);
    }

    public static String id(int i) {
        return RequestSource.requestId(i);
    }
}
