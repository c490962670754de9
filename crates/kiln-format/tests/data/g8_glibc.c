#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
static void emit(float f){ uint32_t b; memcpy(&b,&f,4); printf("%08x %.8g\n", b, (double)f); }
static uint64_t s=0x9E3779B97F4A7C15ull;
static uint32_t rnd(){ s^=s<<13; s^=s>>7; s^=s<<17; return (uint32_t)(s>>16); }
int main(int argc,char**argv){
  long n = argc>1? atol(argv[1]) : 1000;
  float edge[] = {0.0f,-0.0f,INFINITY,-INFINITY,NAN,-NAN,1e-45f,-1e-45f,1.17549435e-38f,3.40282347e38f,-3.40282347e38f,
    1e-5f,1e-4f,9.9999997e-5f,0.0001f,0.00099999f,99999999.0f,1e8f,99999992.0f,99999998.0f,12345678.0f,123456789.0f,
    0.5f,0.25f,0.125f,0.1f,0.2f,0.3f,1.0f,-1.0f,2.0f,10.0f,100.0f,16.0f,0.8f,0.588f,1.0000001f,8.0000001f,3.14159265f,
    9.9999999f,99.999999f,0.99999999f,0.099999999f,9.99999999e-5f,1.23456789e-5f,65536.0f,16777216.0f,16777215.0f,
    33554430.0f,1.5e-44f,4.2e-40f};
  for(unsigned i=0;i<sizeof edge/sizeof *edge;i++) emit(edge[i]);
  for(int e=-45;e<=38;e++){ float p = (float)pow(10.0,e); emit(p); emit(nextafterf(p,0)); emit(nextafterf(p,INFINITY)); emit(-p);}
  for(int i=0;i<=2000;i++){ emit(i/1000.0f); }
  for(long i=0;i<n;i++){ uint32_t b=rnd(); float f; memcpy(&f,&b,4); emit(f); }
  return 0;
}
