package io.durablejournal.demo;

import org.apache.flink.api.java.functions.KeySelector;

/** Keys requests by user: both demo jobs key their stream so (each names its request type). */
public class UserKey<R extends Request> implements KeySelector<R, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(R request) {
        return request.user;
    }
}
