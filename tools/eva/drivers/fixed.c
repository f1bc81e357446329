/* Eva drivers: layer 1, the fixed-point helpers of csrc/fxdp.h (every operand over its whole
 * type, frac / rounding / saturate over the whole of their types, out valid or NULL). */
#include "eva_common.h"

static fxdp_round any_round(void) { return (fxdp_round)any_unsigned(); }

void eva_clz32(void) { (void)fxdp_clz32(any_u32()); }
void eva_clz64(void) { (void)fxdp_clz64(any_u64()); }

void eva_sat_add_i32(void) { (void)fxdp_sat_add_i32(any_i32(), any_i32()); }
void eva_sat_sub_i32(void) { (void)fxdp_sat_sub_i32(any_i32(), any_i32()); }
void eva_checked_add_i32(void) { int32_t o; (void)fxdp_checked_add_i32(any_i32(), any_i32(), EVA_OR_NULL(&o)); }
void eva_checked_sub_i32(void) { int32_t o; (void)fxdp_checked_sub_i32(any_i32(), any_i32(), EVA_OR_NULL(&o)); }
void eva_mul_q_i32(void)
{
    int32_t o;
    (void)fxdp_mul_q_i32(any_i32(), any_i32(), any_unsigned(), any_round(), any_int(), EVA_OR_NULL(&o));
}

void eva_sat_add_i64(void) { (void)fxdp_sat_add_i64(any_i64(), any_i64()); }
void eva_sat_sub_i64(void) { (void)fxdp_sat_sub_i64(any_i64(), any_i64()); }
void eva_checked_add_i64(void) { int64_t o; (void)fxdp_checked_add_i64(any_i64(), any_i64(), EVA_OR_NULL(&o)); }
void eva_checked_sub_i64(void) { int64_t o; (void)fxdp_checked_sub_i64(any_i64(), any_i64(), EVA_OR_NULL(&o)); }
void eva_mul_q_i64(void)
{
    int64_t o;
    (void)fxdp_mul_q_i64(any_i64(), any_i64(), any_unsigned(), any_round(), any_int(), EVA_OR_NULL(&o));
}

void eva_sat_add_u32(void) { (void)fxdp_sat_add_u32(any_u32(), any_u32()); }
void eva_sat_sub_u32(void) { (void)fxdp_sat_sub_u32(any_u32(), any_u32()); }
void eva_checked_add_u32(void) { uint32_t o; (void)fxdp_checked_add_u32(any_u32(), any_u32(), EVA_OR_NULL(&o)); }
void eva_checked_sub_u32(void) { uint32_t o; (void)fxdp_checked_sub_u32(any_u32(), any_u32(), EVA_OR_NULL(&o)); }
void eva_mul_q_u32(void)
{
    uint32_t o;
    (void)fxdp_mul_q_u32(any_u32(), any_u32(), any_unsigned(), any_round(), any_int(), EVA_OR_NULL(&o));
}
