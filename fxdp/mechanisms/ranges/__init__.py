"""Layer 4: range counts and quantiles of a bounded reading (issue 35): the hierarchical
histogram (Cormode, Kulkarni and Srivastava, VLDB 2019) on the numeric-reading family's grid,
each level through an existing frequency oracle, with constrained inference (Hay et al. 2010)
and quantiles with confidence intervals (``_ranges``)."""
