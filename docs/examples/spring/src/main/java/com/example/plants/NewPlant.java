package com.example.plants;

import com.fasterxml.jackson.annotation.JsonInclude;

/** The create command. A long is an int64: Jackson writes every digit of the id as a number. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NewPlant(long id, String name, String tag) {}
